import dataclasses
from dataclasses import dataclass, field

@dataclass
class P:
    x: int
    y: int = 0
    z: list = field(default_factory=list)

p = P(1)
print(p, P(1, 2), P(1, 2, [3]), P(x=5, z=[1]), P(1, y=7))
print(p == P(1), p == P(2), p != P(1, 0, [1]), p == (1, 0, []), P.__hash__ is None)
a, b = P(1), P(1)
a.z.append(1)
print(a.z, b.z)
for f in [lambda: P(), lambda: P(1, 2, 3, 4), lambda: P(1, x=2), lambda: P(1, w=2)]:
    try:
        f()
    except TypeError as e:
        print("TypeError", e)
print(P.__init__.__qualname__, P.__match_args__, P.y, hasattr(P, "z"))
print([f.name for f in dataclasses.fields(P)], [f.type for f in dataclasses.fields(p)])
print(dataclasses.is_dataclass(P), dataclasses.is_dataclass(p), dataclasses.is_dataclass(3))
@dataclass
class Empty:
    pass
print(Empty(), Empty() == Empty())
@dataclass
class Three:
    a: int
    b: str
    c: float
for f in [lambda: Three(), lambda: Three(1), lambda: Three(1, "b", 2.0, 4)]:
    try:
        f()
    except TypeError as e:
        print("TypeError", e)
class Outer:
    @dataclass
    class Inner:
        v: int
print(Outer.Inner(3))
@dataclass
class WithMethods:
    items: list = field(default_factory=list)
    def add(self, x):
        self.items.append(x)
        return self
print(WithMethods().add(1).add(2))
match P(1, 2):
    case P(x, y):
        print("matched", x, y)
