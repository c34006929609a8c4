import enum

class P(enum.Flag):
    R = 4
    W = 2
    X = 1
    RW = 6
print(repr(P.R | P.W), str(P.R | P.W), repr(P(0)), str(P(0)), list(P), P.RW, repr(P(7)))
print(P.R in P(6), P.X in P.RW, bool(P(0)), bool(P.R), repr(~P.R), list(P(7)), len(P(5)))
print(repr(P.R & P.RW), repr(P.R ^ P.RW), P(6) is P.RW, (P.R | P.X) is (P.X | P.R))
class F(enum.Flag):
    B = 2
    A = 1
    N = 0
    C = enum.auto()
print(repr(F.A | F.B), list(F), repr(F(0)), F.N, repr(F.C), repr(~F.A), repr(F.A | F.B | F.C), len(F), repr(F))
try:
    F(8)
except ValueError as e:
    print("ValueError", repr(str(e)))
try:
    P.R in 4
except TypeError as e:
    print("TypeError", e)
class IP(enum.IntFlag):
    R = 4
    W = 2
print(repr(IP.R | IP.W), str(IP.R | IP.W), IP.R | 8, repr(IP.R | 8), repr(IP(0)), format(IP.R))
print(repr(~IP.R), repr(IP.R ^ IP.W), IP.R & 4, type(IP.R & 4).__name__, repr(IP.R + 1), repr(IP(9)))
print(list(IP(6)), len(IP(6)), IP.R == 4, isinstance(IP.W, int), repr(IP))
class Perm(enum.IntFlag):
    READ = enum.auto()
    WRITE = enum.auto()
    EXEC = enum.auto()
print([p.value for p in Perm], repr(Perm.READ | Perm.EXEC), Perm(3))
class Auto(enum.Flag):
    ONE = enum.auto()
    TWO = enum.auto()
    FOUR = enum.auto()
    ALL = ONE | TWO | FOUR if False else 7
print(list(Auto), repr(Auto.ALL), repr(Auto(5)), Auto.ALL == (Auto.ONE | Auto.TWO | Auto.FOUR))
