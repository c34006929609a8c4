import abc

class Base(abc.ABC):
    @property
    @abc.abstractmethod
    def name(self): ...
    @classmethod
    @abc.abstractmethod
    def make(cls): ...
    @staticmethod
    @abc.abstractmethod
    def helper(): ...
print(sorted(Base.__abstractmethods__))
class Impl(Base):
    @property
    def name(self):
        return "impl"
    @classmethod
    def make(cls):
        return cls()
    @staticmethod
    def helper():
        return 42
i = Impl.make()
print(i.name, Impl.helper(), sorted(Impl.__abstractmethods__))
class Partial(Base):
    @property
    def name(self):
        return "p"
try:
    Partial()
except TypeError as e:
    print("TypeError", e)
class Old(abc.ABC):
    @abc.abstractclassmethod
    def c(cls): ...
    @abc.abstractstaticmethod
    def s(): ...
    @abc.abstractproperty
    def p(self): ...
print(sorted(Old.__abstractmethods__))
class OldImpl(Old):
    @classmethod
    def c(cls):
        return "c"
    @staticmethod
    def s():
        return "s"
    p = 3
print(OldImpl.c(), OldImpl.s(), OldImpl().p)
class Setter(abc.ABC):
    def _get(self):
        return 1
    @abc.abstractmethod
    def _set(self, v): ...
    x = property(_get, _set)
print(sorted(Setter.__abstractmethods__), Setter.x.__isabstractmethod__)
