# enum: verify/EnumCheck, unique, enum.property, member/nonmember, _ignore_, _missing_,
# _generate_next_value_, the functional API with boundary, and the global_* helpers.
import enum
from enum import (Enum, IntEnum, StrEnum, Flag, IntFlag, auto, verify, unique, UNIQUE,
                  CONTINUOUS, NAMED_FLAGS, EnumCheck, member, nonmember)

print(list(EnumCheck), repr(UNIQUE), str(CONTINUOUS), NAMED_FLAGS.value)


@verify(UNIQUE, CONTINUOUS)
class Ok(Enum):
    A = 1
    B = 2
    C = 3


print(list(Ok))
for checks, body in (((UNIQUE,), {"A": 1, "B": 1, "C": 2, "D": 2}),
                     ((CONTINUOUS,), {"A": 1, "B": 5}),
                     ((CONTINUOUS,), {"A": 1, "B": 1000})):
    try:
        verify(*checks)(Enum("Bad", body))
    except ValueError as e:
        print(type(e).__name__, e)
try:
    verify(CONTINUOUS)(Flag("F", {"A": 1, "D": 8}))
except ValueError as e:
    print(type(e).__name__, e)
try:
    verify(NAMED_FLAGS)(Flag("G", {"A": 1, "B": 2, "ABX": 7}))
except ValueError as e:
    print(type(e).__name__, e)
try:
    verify(NAMED_FLAGS)(Flag("H", {"A": 1, "BX": 6, "CX": 8 | 16}))
except ValueError as e:
    print(type(e).__name__, e)
print(verify(NAMED_FLAGS, UNIQUE)(Flag("I", {"A": 1, "B": 2, "AB": 3})))
try:
    verify(UNIQUE)(int)
except TypeError as e:
    print(type(e).__name__, e)
try:
    @unique
    class Dup(Enum):
        X = 1
        Y = 1
except ValueError as e:
    print(type(e).__name__, e)


class Planet(Enum):
    EARTH = (5.97e24, 6.37e6)
    MARS = (6.42e23, 3.39e6)

    def __init__(self, mass, radius):
        self.mass = mass
        self.radius = radius

    @enum.property
    def surface(self):
        return round(self.mass / (self.radius ** 2) / 1e10, 3)


print(Planet.EARTH.surface, Planet.MARS.mass, Planet.EARTH.value)
print(isinstance(Planet.__dict__["surface"], enum.property), Planet.surface.__class__.__name__
      if False else "class access raises AttributeError")
try:
    Planet.EARTH.surface = 3
except AttributeError as e:
    print(type(e).__name__, e)


class Shape(Enum):
    @staticmethod
    def _generate_next_value_(name, start, count, last_values):
        return name.title() + str(count)

    _ignore_ = "tmp helper"
    tmp = 5
    helper = 6
    SQUARE = auto()
    CIRCLE = auto()
    size = nonmember(3)
    extra = member(lambda: 1)


print([(m.name, m.value) for m in Shape][:2], Shape.size, Shape.extra.value(), hasattr(Shape, "tmp"))


class Lenient(Enum):
    A = 1
    B = 2

    @classmethod
    def _missing_(cls, value):
        if isinstance(value, str):
            return cls[value.upper()]
        return None


print(Lenient("a"), Lenient(2))
for v in (3, "c"):
    try:
        Lenient(v)
    except (ValueError, KeyError) as e:
        print(type(e).__name__, e)


class Bad(Enum):
    A = 1

    @classmethod
    def _missing_(cls, value):
        return 5


try:
    Bad(2)
except TypeError as e:
    print(type(e).__name__, e)

F = Flag("F", "A B C", boundary=enum.CONFORM)
print(list(F), repr(F(15)), F._boundary_, repr(F.A | F.C))
Color = IntEnum("Color", [("RED", 10), ("GREEN", 20)], module=__name__)
print(repr(Color.RED), Color.GREEN + 1, Color(20), Color["RED"], list(Color))


class Mode(IntFlag):
    R = 4
    W = 2


print(enum.global_enum_repr(Color.RED), enum.global_flag_repr(Mode.R | Mode.W),
      enum.global_flag_repr(Mode(0)), enum.global_str(Color.RED), enum.global_str(Mode(0)))
print(enum.pickle_by_enum_name(Color.RED, 2), enum.pickle_by_global_name(Color.RED, 2))
# global_enum is left out: it needs the module globals the PVM does not expose.
print(sorted(n for n in enum.__all__ if n != "global_enum"))
