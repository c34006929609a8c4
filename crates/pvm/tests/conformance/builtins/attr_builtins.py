"""getattr/setattr/delattr/hasattr, vars() and dir() of simple user classes and instances."""
class Base:
    base_attr = "b"
    def method(self):
        return "m"
class Obj(Base):
    cls_attr = 1
    def __init__(self):
        self.x = 10
        self.y = 20
o = Obj()
print(getattr(o, "x"), getattr(o, "nope", "dflt"), getattr(o, "cls_attr"), getattr(o, "base_attr"), getattr(o, "method")())
setattr(o, "z", 30); setattr(Obj, "added", "A")
print(o.z, o.added, hasattr(o, "z"), hasattr(o, "missing"), hasattr(Obj, "method"), hasattr(o, "__class__"))
delattr(o, "y")
print(vars(o), sorted(k for k in vars(Obj) if not k.startswith("__")), "y" in vars(o))
print([n for n in dir(o) if not n.startswith("__")], [n for n in dir(Obj) if not n.startswith("_")])
print(sorted(vars(Base).keys() - {"__module__", "__dict__", "__weakref__", "__doc__", "__qualname__"}))
def attempt(label, fn):
    try:
        print(label, fn())
    except (AttributeError, TypeError) as e:
        print(label, type(e).__name__, e)
attempt("getattr missing", lambda: getattr(o, "missing"))
attempt("getattr non-str", lambda: getattr(o, 5))
attempt("delattr missing", lambda: delattr(o, "missing"))
attempt("setattr int", lambda: setattr(5, "x", 1))
attempt("setattr builtin type", lambda: setattr(int, "x", 1))
attempt("vars int", lambda: vars(5))
attempt("class attr missing", lambda: Obj.missing)
attempt("hasattr non-str", lambda: hasattr(o, None))
class Dyn:
    def __getattr__(self, name):
        if name.startswith("d_"):
            return name[2:]
        raise AttributeError(f"no {name}")
d = Dyn()
print(getattr(d, "d_value"), hasattr(d, "d_x"), hasattr(d, "other"), getattr(d, "other", "fallback"))
class Raiser:
    @property
    def boom(self):
        raise ValueError("not an AttributeError")
try:
    hasattr(Raiser(), "boom")
except ValueError as e:
    print("hasattr propagates", type(e).__name__, e)
