"""__repr__, __str__ and __format__ in containers, f-strings, str(), print(), and errors."""
class Pt:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __repr__(self):
        return f"Pt({self.x!r}, {self.y!r})"
    def __str__(self):
        return f"({self.x}, {self.y})"
    def __format__(self, spec):
        if spec == "polar":
            return f"r={(self.x ** 2 + self.y ** 2) ** 0.5:.2f}"
        return format(str(self), spec)
p = Pt(3, 4)
print(p, repr(p), str(p), [p], (p,), {p: p} if False else {"k": p}, f"{p}", f"{p!r}", f"{p:polar}", f"{p:>10}|")
print("%s %r" % (p, p), "{} {!r} {:polar}".format(p, p, p), str([p, Pt("a", None)]))
class OnlyStr:
    def __str__(self):
        return "only-str"
o = OnlyStr()
print(str(o), repr(o).startswith("<__main__.OnlyStr object"), f"{o}", [o][0] is o)
class BadRepr:
    def __repr__(self):
        return 5
class RaisingRepr:
    def __repr__(self):
        raise ValueError("repr failed")
for bad in [lambda: repr(BadRepr()), lambda: str(BadRepr()), lambda: [RaisingRepr()].__repr__(), lambda: f"{RaisingRepr()!r}"]:
    try:
        print(bad())
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
class Nested:
    def __init__(self, child=None):
        self.child = child
    def __repr__(self):
        return f"Nested({self.child!r})"
print(Nested(Nested(Nested())), repr(Nested([1, "a"])))
