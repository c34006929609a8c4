"""Annotations are parsed and evaluated where CPython evaluates them, but never enforced."""
from typing import Optional
def f(a: int, b: "str" = "x", *args: float, c: list[int] = None, **kw: dict) -> tuple:
    return (a, b, args, c, kw)
print(f("not an int", 5, c="whatever"))
print(sorted(f.__annotations__), f.__annotations__["a"], f.__annotations__["b"], f.__annotations__["return"])
x: int = "a string"
y: list[str]
print(x, "y declared only")
class P:
    name: str
    age: int = 3
    tags: "list[str]" = []
print(P.age, P.__annotations__, hasattr(P, "name"))
def g(v: Optional[int] = None) -> None:
    return v
print(g(), g(5), g.__annotations__["return"])
count: int = 0
for i in range(3):
    count: int = count + i
print(count)
lam = lambda q: q
print(lam(1))
def h(*, k: bool = False) -> "str":
    return str(k)
print(h(), h.__annotations__)
