"""__slots__ fixes the layout when the class is made: private names are mangled, any iterable
of strings works, bases' slots are inherited, and assigning __slots__ later changes nothing."""
class M:
    __slots__ = ["__secret", "plain"]
    def __init__(self):
        self.__secret = 1
        self.plain = 2
    def reveal(self):
        return self.__secret
m = M()
print(m.reveal(), m.plain, m._M__secret)
try:
    m.__secret = 3
except AttributeError as e:
    print("AttributeError", e)
class D:
    __slots__ = {"a": "doc of a", "b": "doc of b"}
d = D()
d.a, d.b = 1, 2
print(d.a, d.b, sorted(D.__slots__))
class G:
    __slots__ = (n for n in ("g1", "g2"))
g = G()
g.g2 = 5
print(g.g2)
class Base:
    __slots__ = ("x",)
class Mid(Base):
    __slots__ = ("y",)
class Leaf(Mid):
    __slots__ = ()
leaf = Leaf()
leaf.x, leaf.y = 1, 2
print(leaf.x, leaf.y, hasattr(leaf, "__dict__"))
for name in ("z", "__dict__"):
    try:
        setattr(leaf, name, 0)
    except AttributeError as e:
        print("AttributeError", e)
Leaf.__slots__ = ("z",)
try:
    leaf.z = 1
except AttributeError as e:
    print("AttributeError after reassigning __slots__:", e)
class A1:
    __slots__ = ()
class A2:
    __slots__ = ()
class Both(A1, A2):
    __slots__ = ("w",)
both = Both()
both.w = 1
print(both.w, hasattr(both, "__dict__"))
class Open(Base):
    pass
o = Open()
o.anything = 1
print(o.anything, hasattr(o, "__dict__"))
big = type("Big", (), {"__slots__": tuple("s%d" % i for i in range(500))})()
big.s499 = 1
big.s0 = 2
print(big.s499, big.s0)
try:
    big.s500 = 0
except AttributeError as e:
    print("AttributeError", e)
