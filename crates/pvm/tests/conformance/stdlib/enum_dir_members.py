# Enum behaviours: dir() of enum classes and members (CPython 3.11's __dir__), __members__ as a
# read-only mappingproxy, lookups, aliases, flags, mixins, the functional API, member protection.
import enum
from enum import Enum, IntEnum, Flag, IntFlag, auto, unique, StrEnum, EnumCheck, FlagBoundary

def t(f):
    try:
        print(repr(f()))
    except Exception as e:
        print(type(e).__name__, e)

class Color(Enum):
    _order_ = 'RED GREEN BLUE'
    RED = 1
    GREEN = 2
    BLUE = 3

t(lambda: Color.RED in Color)
t(lambda: Color.RED in Color)
t(lambda: Color['RED'])
t(lambda: Color['PINK'])
t(lambda: Color(7))
t(lambda: list(reversed(Color)))
t(lambda: len(Color))
t(lambda: Color.RED.__reduce_ex__(4))
t(lambda: dir(Color.RED))
t(lambda: sorted(n for n in dir(Color) if not n.startswith('__')))
t(lambda: Color.__members__)
t(lambda: hash(Color.RED) == hash('RED'))
t(lambda: format(Color.RED, ''))
t(lambda: f'{Color.RED}')

class Perm(IntFlag):
    R = 4
    W = 2
    X = 1
t(lambda: Perm.R | Perm.W)
t(lambda: list(Perm.R | Perm.W))
t(lambda: Perm(7))
t(lambda: Perm(8))
t(lambda: ~Perm.R)
t(lambda: (Perm.R | Perm.W).name)
t(lambda: Perm.R in (Perm.R | Perm.X))
t(lambda: bool(Perm(0)))
t(lambda: Perm(0))

class Sh(Enum):
    A = 1
    B = 1
t(lambda: Sh.B)
t(lambda: Sh.__members__)
t(lambda: list(Sh))

try:
    @unique
    class U(Enum):
        A = 1
        B = 1
except ValueError as e:
    print(e)

class Planet(Enum):
    EARTH = (5.97e24, 6.37e6)
    def __init__(self, mass, radius):
        self.mass = mass
        self.radius = radius
    @property
    def g(self):
        return round(6.67e-11 * self.mass / self.radius ** 2, 2)
t(lambda: Planet.EARTH.g)
t(lambda: Planet.EARTH.value)

class W(StrEnum):
    A = 'x'
    B = auto()
t(lambda: (W.A, W.B, W.A.upper(), W.A + 'y'))
t(lambda: Enum('Anim', 'ANT BEE', start=10))
t(lambda: list(Enum('Anim', [('A', 5), ('B', 6)])))
t(lambda: IntEnum('N', {'ONE': 1}).ONE + 1)

class Ord(Enum):
    def __lt__(self, other):
        return self.value < other.value
    A = 1
    B = 2
t(lambda: sorted([Ord.B, Ord.A]))
t(lambda: Color.RED.name.lower())
t(lambda: type(Color.RED).__name__)
t(lambda: isinstance(Color.RED, Color))
t(lambda: Color.RED is Color(1))
class Ex(Enum):
    A = 1
    def describe(self):
        return self.name
    @classmethod
    def first(cls):
        return list(cls)[0]
t(lambda: Ex.A.describe())
t(lambda: Ex.first())
t(lambda: Ex.A._value_)
t(lambda: Ex.A._name_)
def bad(): Color.RED = 5
t(bad)
def bad2(): del Color.RED
t(bad2)
t(lambda: enum.EnumType)
t(lambda: enum.EnumMeta is enum.EnumType)
class Color2(enum.Enum):
    RED = 1
    def hello(self):
        return 1
    @enum.property
    def extra(self):
        return 2
class P2(enum.IntEnum):
    A = 1
print(dir(Color2))
print(dir(Color2.RED))
print(set(dir(int)) <= set(dir(P2)))
print(dir(P2.A)[:3])
class Q:
    def __dir__(self):
        return ['b', 'a', 'c']
print(dir(Q()))
m = Color2.__members__
print(type(m).__name__, m['RED'], list(m))
try:
    m['X'] = 1
except TypeError as e:
    print(e)
