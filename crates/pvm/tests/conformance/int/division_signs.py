"""int division, modulo and divmod with every sign combination; pow with 3 args and negative exponents."""
pairs = [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 3), (6, 3), (-6, 3), (2**70, 3), (-(2**70), 7), (5, 2**70), (-5, 2**70)]
for a, b in pairs:
    print(a, b, a // b, a % b, divmod(a, b), a / b if abs(a) < 2**60 else "big", -a // b, a % -b)
print(pow(2, 10), pow(2, -1), pow(-2, 3), pow(2, 0), pow(0, 0), pow(3, 4, 5), pow(-3, 3, 7), pow(3, -1, 7), pow(38, -1, 97))
print(pow(2, 100, 10**9 + 7), pow(5, -2, 13), pow(-1, -1, 5), pow(7, 0, 1), pow(2, 10, -7), 2 ** -2, (-8) ** (1 / 3) if False else "skip complex")
def attempt(label, fn):
    try:
        print(label, fn())
    except (ZeroDivisionError, ValueError, TypeError) as e:
        print(label, type(e).__name__, e)
attempt("floordiv zero", lambda: 1 // 0)
attempt("mod zero", lambda: 1 % 0)
attempt("divmod zero", lambda: divmod(1, 0))
attempt("truediv zero", lambda: 1 / 0)
attempt("pow zero neg", lambda: 0 ** -1)
attempt("pow mod zero", lambda: pow(2, 3, 0))
attempt("no inverse", lambda: pow(2, -1, 4))
attempt("pow float mod", lambda: pow(2.0, 3, 5))
attempt("pow 3 neg base", lambda: pow(2, -1, 1))
print(abs(-5), abs(2**70 * -1), -(-3), +4, ~5, ~-1, 5 & 3, 5 | 3, 5 ^ 3, 1 << 10, -16 >> 2, 2**100 >> 90)
attempt("neg shift", lambda: 1 << -1)
attempt("neg rshift", lambda: 1 >> -1)
print(10**18 * 10**18, (10**20) // (10**10), (10**20) % 997, -(10**20) // 3, round(7, -1), round(15, -1), round(25, -1), round(-35, -1))
