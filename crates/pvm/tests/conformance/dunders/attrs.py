class Dyn:
    def __init__(self): self.real = 1
    def __getattr__(self, name):
        if name.startswith("x_"): return name[2:]
        raise AttributeError(f"no {name}")
d = Dyn(); print(d.real, d.x_hello, getattr(d, "missing", "dflt"))
try: d.other
except AttributeError as e: print("AttributeError", e)
class Logged:
    def __setattr__(self, k, v):
        print("set", k, v); super().__setattr__(k, v)
    def __delattr__(self, k):
        print("del", k); super().__delattr__(k)
l = Logged(); l.a = 5; print(l.a); del l.a; print(hasattr(l, "a"))
class Fmt:
    def __format__(self, spec): return f"<{spec}>"
    def __str__(self): return "S"
    def __repr__(self): return "R"
print(f"{Fmt():abc} {Fmt()!r} {Fmt()!s}", format(Fmt(), "x"), str(Fmt()), repr([Fmt()]))
