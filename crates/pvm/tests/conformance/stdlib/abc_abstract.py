import abc

class Shape(abc.ABC):
    @abc.abstractmethod
    def area(self):
        ...
    @abc.abstractmethod
    def perimeter(self):
        ...
    def describe(self):
        return f"{type(self).__name__} area={self.area()}"

class Half(Shape):
    def area(self):
        return 1

class Square(Half):
    def __init__(self, s):
        self.s = s
    def area(self):
        return self.s ** 2
    def perimeter(self):
        return 4 * self.s

for cls in (Shape, Half):
    try:
        cls()
    except TypeError as e:
        print("TypeError", e)
sq = Square(3)
print(sq.describe(), sq.perimeter(), isinstance(sq, Shape))
print(sorted(Shape.__abstractmethods__), sorted(Half.__abstractmethods__), sorted(Square.__abstractmethods__))
print(type(Shape.__abstractmethods__).__name__, type(Shape).__name__, Shape.area.__isabstractmethod__)
class Many(abc.ABC):
    @abc.abstractmethod
    def c(self): pass
    @abc.abstractmethod
    def a(self): pass
    @abc.abstractmethod
    def b(self): pass
try:
    Many()
except TypeError as e:
    print("TypeError", e)
class Meta(metaclass=abc.ABCMeta):
    @abc.abstractmethod
    def go(self): pass
try:
    Meta()
except TypeError as e:
    print("TypeError", e)
class Fine(abc.ABC):
    pass
print(type(Fine()).__name__, Fine.__abstractmethods__ == frozenset())
class Plain:
    @abc.abstractmethod
    def x(self): pass
print(type(Plain()).__name__)
class WithInit(abc.ABC):
    def __init__(self, v):
        self.v = v
    @abc.abstractmethod
    def get(self): pass
class Impl(WithInit):
    def get(self):
        return self.v
print(Impl(7).get())
try:
    WithInit(1)
except TypeError as e:
    print("TypeError", e)
