import collections

Point = collections.namedtuple("Point", "x y")
p = Point(1, 2)
print(p, p.x, p.y, p[0], p[-1], len(p), tuple(p))
print(Point(x=3, y=4), Point(5, y=6), Point._fields, Point.__name__, Point.__doc__)
print(p._asdict(), p._replace(x=10), Point._make([7, 8]), Point._make(iter("ab")))
print(isinstance(p, tuple), p == (1, 2), p + (3,), p * 2, hash(p) == hash((1, 2)))
x, y = p
print(x, y, sorted([Point(2, 1), Point(1, 5)]))
P3 = collections.namedtuple("P3", ["a", "b", "c"], defaults=[0, None])
print(P3(1), P3(1, 2), P3._field_defaults, P3(a=5, c=3))
print(Point.x.__doc__, Point.__match_args__, p.__getnewargs__())
C = collections.namedtuple("C", "a, b,c")
print(C._fields)
R = collections.namedtuple("R", "ok def _x ok 9", rename=True)
print(R._fields)
class Sub(Point):
    __slots__ = ()
    @property
    def norm1(self):
        return abs(self.x) + abs(self.y)
    def __str__(self):
        return "Sub!"
s = Sub(3, -4)
print(repr(s), str(s), s.norm1, s._replace(y=0))
try:
    p.x = 5
except AttributeError as e:
    print("AttributeError")
E = collections.namedtuple("E", "")
print(E(), E._fields, len(E()))
M = collections.namedtuple("M", "a b", module="mymod")
print(M.__module__)
print(Point(*range(2)), dict(zip(Point._fields, p)))
match p:
    case Point(x=1, y=yy):
        print("matched", yy)
