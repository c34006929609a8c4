import enum

class M(enum.Enum):
    a = 1
    b = 2
    def describe(self):
        return self.name.upper()
    @property
    def double(self):
        return self.value * 2
    @classmethod
    def first(cls):
        return list(cls)[0]
    @staticmethod
    def helper():
        return "static"
print(M.a.describe(), M.b.double, M.first(), M.helper(), M.a.__class__.__name__, type(M).__name__)
class Planet(enum.Enum):
    MERCURY = (3.303e+23, 2.4397e6)
    EARTH = (5.976e+24, 6.37814e6)
    def __init__(self, mass, radius):
        self.mass = mass
        self.radius = radius
    @property
    def gravity(self):
        return 6.673e-11 * self.mass / (self.radius * self.radius)
print(Planet.EARTH.value, Planet.EARTH.mass, round(Planet.EARTH.gravity, 2), Planet((3.303e+23, 2.4397e6)))
class AutoName(enum.Enum):
    def _generate_next_value_(name, start, count, last_values):
        return name.lower()
    X = enum.auto()
    Y = enum.auto()
print(AutoName.X.value, AutoName.Y.value)
class Miss(enum.Enum):
    A = 1
    B = 2
    @classmethod
    def _missing_(cls, value):
        if isinstance(value, str):
            return cls[value.upper()]
        return None
print(Miss("b"), Miss(1))
try:
    Miss(99)
except ValueError as e:
    print("ValueError", e)
class Z(enum.Enum):
    x = 1
    def _p(self):
        pass
    y = 2
    _ignore_ = ["w"]
    w = 3
    _private = 4
print(list(Z), Z.x.y, Z["x"], Z._private)
class Coord(enum.Enum):
    __order = "unused"
    X = enum.auto()
    Y = enum.auto()
    Z = 10
    W = enum.auto()
print([c.value for c in Coord])
class Mixed(enum.Enum):
    A = "text"
    B = [1, 2]
    C = None
print(Mixed([1, 2]), Mixed(None), Mixed("text"), len(Mixed))
class Shape(enum.Enum):
    SQUARE = 2
    DIAMOND = 1
    CIRCLE = 3
    ALIAS_FOR_SQUARE = 2
print(list(Shape), list(Shape.__members__), Shape.ALIAS_FOR_SQUARE.name)
class Mem(enum.Enum):
    a = enum.member(lambda: 1)
    b = enum.nonmember(5)
print(list(Mem.__members__), Mem.b, Mem.a.value())
import copy
print(copy.copy(M.a) is M.a, copy.deepcopy([M.b])[0] is M.b)
