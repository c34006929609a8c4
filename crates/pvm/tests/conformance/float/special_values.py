"""inf and nan: arithmetic, comparisons, min/max, containers, formatting, and float exceptions."""
import math
inf, nan = float("inf"), float("nan")
print(inf + 1, inf - inf, inf * 0, -inf * -1, inf / inf, 1 / inf, -1 / inf, inf > 1e308, -inf < -1e308, inf == inf)
print(nan == nan, nan != nan, nan < 1, nan > 1, nan is nan, [nan] == [nan], nan in [nan], (nan,) == (nan,), math.isnan(nan * 0))
print(max(1, nan), max(nan, 1), min(nan, 2), sorted([3, 1, 2]), math.isinf(-inf), math.isfinite(1e308), math.copysign(1, -0.0))
print(str(inf), repr(-inf), str(nan), f"{inf:.2f}", f"{nan:e}", f"{-inf:>8}", f"{inf:%}", "%f %e %g" % (inf, -inf, nan))
print(0.0 == -0.0, str(-0.0), repr(0.0 * -1), math.copysign(1, 0.0 * -1), -0.0 + 0.0, abs(-0.0), 1 / inf == 0.0)
def attempt(label, fn):
    try:
        print(label, fn())
    except (ZeroDivisionError, OverflowError, ValueError) as e:
        print(label, type(e).__name__, e)
attempt("div zero", lambda: 1.0 / 0)
attempt("floordiv zero", lambda: 1.0 // 0.0)
attempt("mod zero", lambda: 1.0 % 0.0)
attempt("divmod zero", lambda: divmod(1.0, 0))
attempt("pow overflow", lambda: 10.0 ** 400)
attempt("neg pow frac", lambda: (-8.0) ** 0.5 if False else 0.0 ** -1)
attempt("int of inf", lambda: int(inf))
attempt("mul overflow", lambda: 1e308 * 10)
attempt("exp overflow", lambda: math.exp(1000))
attempt("sqrt neg", lambda: math.sqrt(-1))
print(1e308 * 10, -1e308 * 10, 2.0 ** 1023 * 2, 1e-320 / 1e10, 5e-324 / 2)
