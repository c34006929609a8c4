# enum: FlagBoundary STRICT/CONFORM/EJECT/KEEP, pseudo-members, ~, aliases in flags, bin.
import enum
from enum import Flag, IntFlag, auto, STRICT, CONFORM, EJECT, KEEP, FlagBoundary


class Perm(Flag):
    R = 4
    W = 2
    X = 1
    RWX = 7


class Conf(Flag, boundary=CONFORM):
    A = 1
    B = 2
    C = 8


class Ej(Flag, boundary=EJECT):
    A = 1
    B = 2


class Kp(Flag, boundary=KEEP):
    A = 1
    B = 2


class Num(IntFlag):
    ONE = 1
    TWO = 2
    FOUR = 4


print(FlagBoundary.STRICT, repr(KEEP), list(FlagBoundary), STRICT == "strict")
print(Perm._boundary_, Conf._boundary_, IntFlag._boundary_, Num._boundary_, Flag._boundary_)
print(list(Perm), list(Perm.RWX), len(Perm.RWX), Perm.RWX, repr(Perm.R | Perm.W))
print(repr(Perm(0)), Perm(0), bool(Perm(0)), repr(~Perm.R), repr(~Perm.RWX), repr(~Perm(0)))
print(Perm.R in Perm.RWX, Perm.RWX in Perm.R, Perm(6), Perm(6) is Perm.R | Perm.W)
print(Perm.__members__.keys(), Perm._member_names_, Perm["RWX"], Perm(7) is Perm.RWX)
for v in (8, 15, -1, -8, "x", 3.0):
    try:
        print(v, repr(Perm(v)))
    except (ValueError, TypeError) as e:
        print(v, type(e).__name__, e)
for v in (4, 5, 16, 255, -1, -2):
    print(v, repr(Conf(v)), repr(Ej(v)), repr(Kp(v)))
print(repr(~Conf.A), repr(~Ej.A), repr(~Kp.A), repr(Kp(8) | Kp.B))
print(repr(Num(8)), repr(Num(-1)), repr(~Num.ONE), repr(Num.ONE | 16), Num(8) + 1, ~Num(0))
print(str(Num.ONE | Num.TWO), format(Num.TWO, "03d"), Num.ONE & 3, 3 | Num.FOUR, type(3 | Num.FOUR))
print(list(Num(7)), list(Num(12)), len(Num(12)), Num(12), repr(Num(12)))
print(enum.bin(10), enum.bin(~10), enum.bin(5, 8), enum.bin(-1, 3), enum.bin(0))
print(enum.show_flag_values(13), enum.show_flag_values(0))


class Sparse(Flag):
    X = 1
    Y = 4
    XY = 5


print(list(Sparse), repr(Sparse(5)), repr(~Sparse.X), repr(Sparse(0)))
try:
    Sparse(2)
except ValueError as e:
    print(type(e).__name__, e)


class Unordered(Flag):
    HIGH = 4
    LOW = 1
    MID = 2


print(list(Unordered), list(Unordered(7)), repr(Unordered(7)), repr(Unordered(3)))


class Alias(Flag):
    A = 1
    B = 2
    AB = 3
    D = 8
    MULTI = 24


print(list(Alias), repr(Alias(27)), repr(Alias.MULTI), Alias._member_names_)
try:
    Alias(16)
except ValueError as e:
    print(type(e).__name__, e)
