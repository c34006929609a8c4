"""float methods: is_integer, as_integer_ratio, hex/fromhex, conjugate/real/imag, __trunc__/__floor__/__ceil__."""
import math
for f in [0.0, -0.0, 1.5, -2.25, 1e300, 5e-324, 0.1, 3.0, 2.0**60, -1e-10]:
    print(repr(f), f.is_integer(), f.as_integer_ratio(), f.hex(), float.fromhex(f.hex()) == f, f.real, f.imag, f.conjugate())
print(float.fromhex("0x1.8p1"), float.fromhex("-0x1p-2"), float.fromhex("  0X.8p+0 "), float.fromhex("inf"), float.fromhex("0x1.fffffffffffffp1023"))
print(math.trunc(-2.5), math.floor(-2.5), math.ceil(-2.5), math.trunc(2.5), math.floor(2.5), math.ceil(2.5), int(-0.9))
def attempt(label, fn):
    try:
        print(label, fn())
    except (ValueError, OverflowError, TypeError) as e:
        print(label, type(e).__name__, e)
attempt("ratio inf", lambda: float("inf").as_integer_ratio())
attempt("ratio nan", lambda: float("nan").as_integer_ratio())
attempt("fromhex junk", lambda: float.fromhex("0x1.g"))
attempt("fromhex overflow", lambda: float.fromhex("0x1p1024"))
attempt("floor inf", lambda: math.floor(float("inf")))
attempt("float bad", lambda: float("1.2.3"))
attempt("float none", lambda: float(None))
attempt("float list", lambda: float([1]))
print(float("  1e3 "), float("-inf"), float("+nan"), float("1_000.5"), float("Infinity"), float(".5"), float("5."), float(True))
class F:
    def __float__(self):
        return 2.5
class I:
    def __index__(self):
        return 4
print(float(F()), float(I()), float(10**20), float("0x10".replace("0x", "")), 1e5 == 100000, 0.1 + 0.2 == 0.3)
