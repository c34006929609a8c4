"""Classes: __init_subclass__, __set_name__, __class_getitem__, descriptors precedence, __slots__,
class attributes vs instance, super() in classmethods/staticmethod-less contexts, __getattr__ vs
__getattribute__, metaclass __prepare__-free namespaces, dynamic type(), __qualname__ of nested."""


class Base:
    registry = []

    def __init_subclass__(cls, tag=None, **kw):
        super().__init_subclass__(**kw)
        cls.tag = tag
        Base.registry.append(cls.__name__)


class A(Base, tag="a"):
    pass


class B(A):
    pass


print(Base.registry, A.tag, B.tag)


class Field:
    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return getattr(obj, self.name, "unset")

    def __set__(self, obj, value):
        setattr(obj, self.name, value * 2)


class Model:
    x = Field()
    y = Field()


m = Model()
m.x = 5
print(m.x, m.y, Model.x.name, vars(m))


class Gen:
    def __class_getitem__(cls, item):
        return f"{cls.__name__}[{item!r}]"


print(Gen[int], Gen["x"])


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self):
        self.a = 1


s = Slotted()
try:
    s.c = 3
except AttributeError as e:
    print("AttributeError", e)
try:
    print(s.b)
except AttributeError as e:
    print("AttributeError", e)


class Lazy:
    def __init__(self):
        self.real = "here"

    def __getattr__(self, name):
        return f"lazy {name}"


lz = Lazy()
print(lz.real, lz.other)


class Audit:
    def __getattribute__(self, name):
        if name == "secret":
            raise AttributeError("hidden")
        return object.__getattribute__(self, name)

    def __getattr__(self, name):
        return f"fallback {name}"


print(Audit().secret)


class Parent:
    @classmethod
    def create(cls):
        return cls.__name__

    def hello(self):
        return "parent"


class Child(Parent):
    @classmethod
    def create(cls):
        return "child of " + super().create()

    def hello(self):
        return "child+" + super().hello()


print(Child.create(), Child().hello())
Dyn = type("Dyn", (Parent,), {"z": 1, "hello": lambda self: "dyn"})
print(Dyn().hello(), Dyn.z, Dyn.__mro__[1].__name__, type(Dyn).__name__)


class Outer:
    class Inner:
        def method(self):
            pass


print(Outer.Inner.__qualname__, Outer.Inner.method.__qualname__)


class Prop:
    def __init__(self):
        self._v = 0

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, val):
        if val < 0:
            raise ValueError("negative")
        self._v = val

    @v.deleter
    def v(self):
        self._v = None


p = Prop()
p.v = 3
print(p.v)
try:
    p.v = -1
except ValueError as e:
    print("ValueError", e)
del p.v
print(p.v)


class Eq:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, Eq) and self.v == other.v


print(Eq(1) == Eq(1), Eq(1) != Eq(2), Eq.__hash__)
try:
    hash(Eq(1))
except TypeError as e:
    print("TypeError", e)


class Ordered:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return self.v < other.v

    def __repr__(self):
        return f"O{self.v}"


print(sorted([Ordered(3), Ordered(1), Ordered(2)]), max(Ordered(1), Ordered(5)))
try:
    Ordered(1) <= Ordered(2)
except TypeError as e:
    print("TypeError", e)
print(Ordered(2) > Ordered(1))
