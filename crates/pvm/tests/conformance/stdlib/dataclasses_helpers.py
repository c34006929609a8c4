import collections
import dataclasses
from dataclasses import dataclass, field

@dataclass
class Point:
    x: int
    y: int
@dataclass
class Line:
    a: Point
    b: Point
    tags: list = field(default_factory=list)
    meta: dict = field(default_factory=dict)
l = Line(Point(0, 0), Point(1, 2), ["t"], {"k": Point(3, 4)})
print(dataclasses.asdict(l))
print(dataclasses.astuple(l))
d = dataclasses.asdict(l)
d["tags"].append("x")
print(l.tags)
print(dataclasses.asdict(Point(1, 2), dict_factory=lambda kv: sorted(kv, reverse=True)))
print(dataclasses.astuple(Point(1, 2), tuple_factory=list))
NT = collections.namedtuple("NT", "p q")
@dataclass
class HasNT:
    n: NT
print(dataclasses.asdict(HasNT(NT(Point(1, 1), (2, [3])))))
p2 = dataclasses.replace(Point(1, 2), y=5)
print(p2, dataclasses.replace(Point(1, 2)))
for bad in [lambda: dataclasses.replace(Point(1, 2), z=3), lambda: dataclasses.asdict(3),
            lambda: dataclasses.astuple(Point), lambda: dataclasses.fields(3),
            lambda: dataclasses.replace(3)]:
    try:
        bad()
    except TypeError as e:
        print("TypeError", e)
@dataclass
class NI:
    a: int
    b: int = field(init=False, default=0)
try:
    dataclasses.replace(NI(1), b=2)
except ValueError as e:
    print("ValueError", e)
print(dataclasses.replace(NI(1), a=3))
M = dataclasses.make_dataclass("M", [("a", int), ("b", str, field(default="z"))], namespace={"hi": lambda self: "hi " + self.b})
m = M(1)
print(m, m.hi(), dataclasses.is_dataclass(M))
M2 = dataclasses.make_dataclass("M2", ["u", "v"], frozen=True)
print(M2(1, 2), hash(M2(1, 2)) == hash((1, 2)))
@dataclass
class Rec:
    child: object = None
r = Rec()
r.child = r
print(r)
