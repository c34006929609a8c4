# A dataclass's __init__ called with each field once, positionally or by name, and every
# other way, raising CPython's errors; the generated comparisons and hash (compiled from
# CPython's templates, `_dataclasses.init`/`method`): properties, __getattr__ and a user
# __setattr__ behave as from Python.
from dataclasses import dataclass, field, replace


@dataclass
class P:
    x: int
    y: str
    z: list = field(default_factory=list)


print(P(1, "a"), P(1, "a", [2]), P(1, y="b"), P(y="c", x=2), P(z=[1], y="d", x=3))
for call in [lambda: P(1, "a", [], 4), lambda: P(1, x=2), lambda: P(1, "a", w=3),
             lambda: P(1), lambda: P(y="a", w=1), lambda: P(1, "a", z=[], y="b")]:
    try:
        call()
    except TypeError as e:
        print("TypeError", e)


@dataclass
class Empty:
    pass


for call in [lambda: Empty(), lambda: Empty(a=1), lambda: Empty(1)]:
    try:
        print(call())
    except TypeError as e:
        print("TypeError", e)


@dataclass(frozen=True, order=True)
class F:
    a: int
    b: str

    def __post_init__(self):
        print("post_init", self.a, self.b)


f = F(2, "x")
print(f, f < F(2, "y"), f >= F(1, "z"), f == F(2, "x"), hash(f) == hash((2, "x")))
try:
    f.a = 3
except Exception as e:
    print(type(e).__name__, e)
print(replace(f, b="w"), sorted([F(3, "a"), F(1, "b"), F(2, "c")]))


@dataclass
class Logged:
    a: int
    b: int

    def __setattr__(self, name, value):
        print("set", name, value)
        object.__setattr__(self, name, value)


l = Logged(1, b=2)
print(l, l == Logged(1, 2))


class Base:
    @property
    def b(self):
        return self._b * 10

    @b.setter
    def b(self, v):
        self._b = v

    def __getattr__(self, name):
        return "missing " + name


@dataclass(eq=True, order=True)
class D(Base):
    a: int
    b: int


d = D(1, 2)
print(d, d.b, d.nothing, d == D(1, 2), d < D(1, 3), D(1, 3) > d)


@dataclass(unsafe_hash=True)
class H:
    a: int
    b: tuple


print(hash(H(1, (2, 3))) == hash((1, (2, 3))), {H(1, (2,)), H(1, (2,))})
try:
    hash(H(1, [2]))
except TypeError as e:
    print("TypeError", e)
