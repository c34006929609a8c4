import enum

class N(enum.IntEnum):
    A = 1
    B = 2
print(repr(N.A), str(N.A), format(N.A), f"{N.A:>3}", N.A + 1, N.A == 1, N(2), N.A < N.B)
print(sorted([N.B, N.A]), N.A * 10, [10, 20, 30][N.B], int(N.B), isinstance(N.A, int), repr(N))
print({1: "one"}[N.A], N.A in N, hash(N.A) == hash(1), N["B"], f"{N.B:03d}", "%d" % N.B)
class S(str, enum.Enum):
    a = "x"
    b = "y"
print(repr(S.a), str(S.a), format(S.a), S.a == "x", S("y"), S.a.upper(), S.a + "!")
class SE(enum.StrEnum):
    ALPHA = enum.auto()
    BETA = "bee"
print(repr(SE.ALPHA), str(SE.ALPHA), SE.BETA, f"{SE.BETA}", SE.ALPHA == "alpha", SE("bee"))
try:
    class BadStr(enum.StrEnum):
        X = 1
except TypeError as e:
    print("TypeError", e)
class Fl(float, enum.Enum):
    pi = 3.14
    e = 2.718
print(repr(Fl.pi), str(Fl.pi), Fl.pi + 1, Fl(2.718), round(Fl.e, 1))
class T(tuple, enum.Enum):
    a = (1, 2)
    b = (3, 4)
print(T.a, T.a[0], T.a.value, T((3, 4)), len(T.b))
class Pri(enum.IntEnum):
    LOW = enum.auto()
    MID = enum.auto()
    HIGH = enum.auto()
print(list(Pri), max(Pri), Pri.HIGH - Pri.LOW, Pri(3))
try:
    N(5)
except ValueError as e:
    print("ValueError", e)
