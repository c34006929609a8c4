"""float repr (shortest round-trip), round() with ndigits incl. negative, half-even and edge cases."""
vals = [0.1, 0.2 + 0.1, 1 / 3, 2 / 3, 1e16, 1e15, 123456789012345678.0, 1e-4, 1e-5, 0.000123, 1.5e-7,
        2.5, -0.0, 1e22, 1e23, 5e-324, 1.7976931348623157e308, 100.0, 1e100, 12345.678]
for v in vals:
    print(repr(v), str(v), round(v, 2), round(v))
for v in [0.5, 1.5, 2.5, -0.5, -1.5, 0.125, 0.375, 2.675, 1.005, 12345.5]:
    print(v, round(v), round(v, 1), round(v, 2), round(v, -1), round(v, 0))
print(round(1234.5678, -2), round(-1234.5678, -3), round(5e-324, 400), round(1e300, -300), round(0.0, 3), round(-0.0))
def attempt(label, fn):
    try:
        print(label, fn())
    except (ValueError, OverflowError, TypeError) as e:
        print(label, type(e).__name__, e)
attempt("round inf", lambda: round(float("inf")))
attempt("round nan", lambda: round(float("nan")))
attempt("round inf nd", lambda: round(float("inf"), 2))
attempt("round str nd", lambda: round(1.5, "1"))
attempt("round float nd", lambda: round(1.5, 1.0))
print(type(round(2.5)).__name__, type(round(2.5, 0)).__name__, type(round(2.5, None)).__name__, round(7, 2), type(round(7, 2)).__name__)
