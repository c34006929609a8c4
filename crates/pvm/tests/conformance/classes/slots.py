"""__slots__: fixed attributes, no __dict__, inheritance with and without slots, errors."""
class P:
    __slots__ = ("x", "y")
    def __init__(self, x, y):
        self.x, self.y = x, y
p = P(1, 2)
print(p.x, p.y, hasattr(p, "__dict__"), P.__slots__)
for action in [lambda: setattr(p, "z", 3), lambda: getattr(P(1, 2), "w")]:
    try:
        action()
    except AttributeError as e:
        print(type(e).__name__, e)
del p.y
try:
    p.y
except AttributeError as e:
    print(type(e).__name__, e)
class Q(P):
    pass
q = Q(1, 2)
q.extra = "ok"
print(q.extra, hasattr(q, "__dict__"), "extra" in q.__dict__)
class R(P):
    __slots__ = ("z",)
r = R(1, 2)
r.z = 3
print(r.x, r.z, hasattr(r, "__dict__"))
try:
    r.other = 1
except AttributeError as e:
    print(type(e).__name__, e)
class S:
    __slots__ = "single"
s = S()
s.single = 1
print(s.single, S.__slots__)
class WithDict:
    __slots__ = ("a", "__dict__")
w = WithDict()
w.a = 1; w.b = 2
print(w.a, w.b, "b" in w.__dict__)
class Default:
    __slots__ = ("v",)
    def get(self):
        return getattr(self, "v", "unset")
print(Default().get())
