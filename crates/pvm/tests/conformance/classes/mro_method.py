"""cls.mro() and type.mro(cls) return the MRO as a new list; __mro__ is the tuple; a metaclass may override mro()."""


class A:
    pass


class B(A):
    pass


class C(A):
    pass


class D(B, C):
    pass


print(D.mro())
print(D.__mro__)
print(type.mro(D), type.mro(int))
print(int.mro(), bool.__mro__, object.mro(), type.mro(type), dict.mro())
m = D.mro()
m.append("mutable copy")
print(type(D.mro()).__name__, D.mro() == list(D.__mro__), len(D.mro()), D().__class__.mro()[1].__name__)


class Meta(type):
    def mro(cls):
        return super().mro()


class E(B, metaclass=Meta):
    pass


print(E.mro(), E.__mro__, type.mro(Meta))
print([k.__name__ for k in KeyError.mro()], ValueError.__mro__[-2].__name__)
for f in [lambda: type.mro(), lambda: type.mro(1), lambda: type.mro(D, 1), lambda: D().mro()]:
    try:
        f()
    except (TypeError, AttributeError) as e:
        print(type(e).__name__, e)
