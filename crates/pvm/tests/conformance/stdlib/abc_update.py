import abc

class A(abc.ABC):
    @abc.abstractmethod
    def f(self): ...
class B(A):
    pass
def f(self):
    return "patched"
B.f = f
print(sorted(B.__abstractmethods__))
abc.update_abstractmethods(B)
print(sorted(B.__abstractmethods__), B().f())
class C(A):
    def f(self):
        return 1
def g(self): ...
g.__isabstractmethod__ = True
C.g = g
abc.update_abstractmethods(C)
print(sorted(C.__abstractmethods__))
try:
    C()
except TypeError as e:
    print("TypeError", e)
class NotAbc:
    pass
print(abc.update_abstractmethods(NotAbc) is NotAbc, hasattr(NotAbc, "__abstractmethods__"))
class Mixin:
    def f(self):
        return "mixin"
class D(Mixin, A):
    pass
print(sorted(D.__abstractmethods__), D().f())
class E(A, Mixin):
    pass
print(sorted(E.__abstractmethods__))
print(isinstance(A, abc.ABCMeta), issubclass(abc.ABCMeta, type), abc.ABC.__slots__)
class Kw(abc.ABC):
    def __init_subclass__(cls, tag=None, **kw):
        super().__init_subclass__(**kw)
        cls.tag = tag
class K2(Kw, tag="t"):
    pass
print(K2.tag, K2().tag)
