# getattr(obj, name) and dataclasses' generated methods look attributes up by a str object:
# instance dict against class attributes, data and non-data descriptors, __getattr__,
# defaults, names built at run time, and a class changed between two lookups.
from dataclasses import dataclass, field


class Desc:
    def __get__(self, obj, cls):
        return "desc-get"

    def __set__(self, obj, v):
        obj.__dict__["_d"] = v


class Plain:
    def __get__(self, obj, cls):
        return "plain-get"


class C:
    k = "class"
    d = Desc()
    p = Plain()

    def __init__(self):
        self.x = 1
        self.__dict__["d"] = "shadowed?"
        self.__dict__["p"] = "instance wins"

    @property
    def prop(self):
        return self.x * 10

    def meth(self):
        return "m"


class G(C):
    def __getattr__(self, name):
        return "fallback:" + name


c = C()
for name in ["x", "k", "d", "p", "prop", "__class__", "".join(["x"]), "k" * 1]:
    print(name, getattr(c, name))
print(getattr(c, "meth")(), getattr(c, "missing", "default"))
try:
    getattr(c, "missing")
except AttributeError as e:
    print("AttributeError", e)
g = G()
print(getattr(g, "nope"), getattr(g, "x"), getattr(g, "nope", "default"))
c.k = "instance"
print(getattr(c, "k"), getattr(C, "k"))
C.x = property(lambda self: "now a property")
print(getattr(c, "x"), getattr(c, "".join(["x"])))
del C.x
print(getattr(c, "x"))


@dataclass(order=True)
class P:
    a: int
    b: str = "b"
    tags: list = field(default_factory=list, compare=False)


ps = [P(3, "z"), P(1, "y"), P(3, "a"), P(1, "y", ["t"])]
print(sorted(ps), ps[1] == ps[3], ps[0] < ps[2], ps[0] > ps[2])


@dataclass(frozen=True)
class F:
    a: int
    b: int

    @property
    def s(self):
        return self.a + self.b


print(hash(F(1, 2)) == hash(F(1, 2)), F(1, 2) == F(1, 2), {F(1, 2), F(1, 2), F(2, 1)} == {F(2, 1), F(1, 2)})
print(F(1, 2).s, getattr(F(4, 5), "s"))
