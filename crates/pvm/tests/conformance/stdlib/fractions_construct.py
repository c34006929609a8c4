from fractions import Fraction as F

print(F(3, 6), F(-4, 8), F(4, -8), F(0, 5), F(7), F(), F(F(1, 2), F(1, 3)), F(True))
print(F(1.5), F(0.1), F(-2.75), F(1e-3), F(2 ** 60))
for s in ["3/4", " -3/4 ", "1.25e-2", "1_000", "+7", "1.", ".5", "1e3", "-0.000", "10/-2" if False else "10/20", "1_0/2_0"]:
    print(repr(s), F(s))
for s in ["abc", "1/0x", "1 /2", "", ".", "1__0", "_1", "1e", "1/2e3", "inf", "nan", "0x10"]:
    try:
        F(s)
    except (ValueError, ZeroDivisionError) as e:
        print(type(e).__name__, e)
for args in [(1, 0), ("1/0",), (1, 2.0), (1.0, 2), ([1],), (float("nan"),), (float("inf"),)]:
    try:
        F(*args)
    except Exception as e:
        print(type(e).__name__, e)
x = F(6, 4)
print(x.numerator, x.denominator, x.as_integer_ratio(), repr(x), str(x), str(F(3, 1)))
print(F.from_float(0.25), F.from_float(3), F(1, 3).limit_denominator(0) if False else "")
try:
    F.from_float("0.5")
except TypeError as e:
    print("TypeError", e)
print(F(-1, 3) == F(1, -3), F(2, 4) is not F(1, 2), type(F(1, 2)).__name__)
