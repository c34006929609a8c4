"""int.bit_length/bit_count/as_integer_ratio/is_integer-like behaviour, conjugate, numerator/denominator."""
for n in [0, 1, -1, 7, 8, -8, 255, 2**64 - 1, -(2**64), 10**50]:
    print(n, n.bit_length(), n.bit_count(), n.as_integer_ratio(), n.numerator, n.denominator, n.real, n.imag, n.conjugate())
print(True.bit_length(), False.bit_count(), True.as_integer_ratio(), int.__name__)
print(bin(0), bin(-5), oct(64), hex(-255), hex(2**70), bin(2**65 + 1), oct(-0o777))
print(0b1010, 0o17, 0xff, 1_000_000, 0x_ff, 0b_1_0, int("1_000"), int("0x1f", 16), int("0x1f", 0), int("0b11", 0), int("0o17", 0), int("z", 36))
print(int(" -42 "), int("+7"), int(3.99), int(-3.99), int(True), int("00"), int("0", 0), int(b"12"), int(bytearray(b"13")))
def attempt(label, fn):
    try:
        print(label, fn())
    except (ValueError, TypeError, OverflowError) as e:
        print(label, type(e).__name__, e)
attempt("bad literal", lambda: int("12a"))
attempt("empty", lambda: int(""))
attempt("base 0 leading zero", lambda: int("010", 0))
attempt("bad base", lambda: int("1", 1))
attempt("base 37", lambda: int("1", 37))
attempt("base with int", lambda: int(5, 10))
attempt("inf", lambda: int(float("inf")))
attempt("nan", lambda: int(float("nan")))
attempt("underscore end", lambda: int("1_"))
attempt("double underscore", lambda: int("1__0"))
attempt("none", lambda: int(None))
attempt("list", lambda: int([1]))
class Trunc:
    def __trunc__(self):
        return 7
class Idx:
    def __index__(self):
        return 9
class IntM:
    def __int__(self):
        return 11
print(int(Idx()), int(IntM()), bin(Idx()), hex(Idx()), [10, 20, 30][Idx() // 9 if False else 1])
