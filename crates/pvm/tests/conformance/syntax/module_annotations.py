"""Module and class __annotations__ (also for annotations inside if/for blocks); function-local annotations are not evaluated; __debug__."""
x: int = 1
y: "str"
z: "list[int]" = []
if True:
    w: float = 2.0
print(__annotations__, x)
class K:
    a: int
print(K.__annotations__)
def f():
    local: undefined_type = 1
    return local
print(f())
if True:
    only: int = 1
print(__annotations__)
class Q:
    for i in range(1):
        v: str = "x"
print(Q.__annotations__)
print(__debug__)
