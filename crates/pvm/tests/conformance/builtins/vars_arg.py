class P:
    cls_attr = 1
    def __init__(self):
        self.a = 1
        self.b = [2]
p = P()
d = vars(p)
print(d, d is p.__dict__, "cls_attr" in d)
d["c"] = 3
print(p.c, sorted(vars(p)))
class S:
    __slots__ = ("x",)
for o in [1, "s", [1], S(), None]:
    try:
        vars(o)
    except TypeError as e:
        print(type(o).__name__, "TypeError", e)
def f(**kw):
    return kw
print(sorted(k for k in vars(P) if not k.startswith("__")))
for args in [(1, 2)]:
    try:
        vars(*args)
    except TypeError as e:
        print("TypeError", e)
try:
    vars(object=p)
except TypeError as e:
    print("TypeError", e)
