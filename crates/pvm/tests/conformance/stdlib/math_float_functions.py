# math's float helpers added to the PVM: fsum (exactly rounded), fmod, remainder, modf, frexp,
# ldexp, nextafter, ulp, cbrt, exp2, asinh/acosh/atanh, erf/erfc, dist.
import math

inf, nan = math.inf, math.nan


def show(f, *args):
    try:
        r = f(*args)
    except Exception as e:
        r = type(e).__name__ + ": " + str(e)
    print(f.__name__, args, "->", r)


# fsum is exactly rounded, as CPython's
print(math.fsum([1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50]))
print(math.fsum([0.1] * 10), sum([0.1] * 10))
print(math.fsum([1, 1e100, 1, -1e100]), math.fsum([]), math.fsum(range(10)))
print(math.fsum([1.7976931348623157e308, -1.7976931348623157e308, 1.0]))
print(math.fsum([2.0 ** 53, 1.0, 2.0 ** -52]), math.fsum([2.0 ** 53, -1.0, -(2.0 ** -52)]))
print(math.fsum(x / 7 for x in range(1, 50)))
print(math.fsum([inf, 1.0]), math.fsum([-inf, 2.0]), math.fsum([nan, 1.0]))
show(math.fsum, [inf, -inf])
show(math.fsum, [1e308, 1e308])
show(math.fsum, [1, "a"])

# fmod / remainder
for x, y in [(7.0, 3.0), (-7.0, 3.0), (7.0, -3.0), (5.5, 2.0), (1e300, 3.0), (3.0, inf),
             (-0.0, 1.0), (inf, 1.0), (1.0, 0.0), (nan, 1.0)]:
    show(math.fmod, x, y)
for x, y in [(7.0, 3.0), (8.0, 3.0), (5.0, 2.0), (7.0, 2.0), (-5.0, 2.0), (2.5, 1.0),
             (3.5, 1.0), (1e300, 7.0), (3.0, inf), (inf, 1.0), (1.0, 0.0), (nan, 2.0)]:
    show(math.remainder, x, y)
show(math.fmod, 1.0)

# modf / frexp / ldexp
for x in [3.75, -3.75, 0.0, -0.0, 1e300, 5e-324, inf, -inf]:
    show(math.modf, x)
print(math.modf(nan))
for x in [1.0, 8.0, 0.1, -3.0, 0.0, -0.0, 5e-324, 1.7976931348623157e308, inf, -inf]:
    show(math.frexp, x)
for x, i in [(0.5, 4), (1.0, -1074), (1.0, -1075), (1.0, 1023), (1.0, 1024), (-3.0, 2),
             (0.0, 10 ** 30), (-0.0, 5), (1.0, -10 ** 30), (-1.0, -10 ** 30), (inf, -5),
             (1.0, True), (3, 1)]:
    show(math.ldexp, x, i)
show(math.ldexp, 1.0, 10 ** 30)
show(math.ldexp, 1.0, 2.0)
m, e = math.frexp(123.456)
print(math.ldexp(m, e) == 123.456)

# nextafter / ulp
for x, y in [(1.0, 2.0), (1.0, 0.0), (0.0, 1.0), (0.0, -1.0), (1.0, 1.0), (-0.0, 0.0),
             (1.7976931348623157e308, inf), (inf, 0.0), (nan, 1.0)]:
    show(math.nextafter, x, y)
for x in [1.0, -1.0, 0.0, 1e300, 5e-324, 2.0 ** 52, 1.7976931348623157e308, inf, nan]:
    show(math.ulp, x)

# cbrt / exp2 (exact cases; cbrt(27.0) is left out: glibc says 3.0000000000000004, libm 3.0)
for x in [-8.0, 0.0, -0.0, 1.0, 64.0, 1e-300 ** 0 * 125.0, inf, -inf]:
    show(math.cbrt, x)
for x in [0.0, 1.0, 10.0, -1.0, -1074.0, 1023.0, 1024.0, -inf, inf]:
    show(math.exp2, x)

# hyperbolic inverses and erf, rounded (the PVM's libm may differ in the last bit)
for f in (math.asinh, math.acosh, math.atanh, math.erf, math.erfc):
    out = []
    for x in [-2.0, -0.5, 0.0, 0.5, 1.0, 2.0, 10.0]:
        try:
            out.append(repr(round(f(x), 12)))
        except ValueError as e:
            out.append("ValueError")
    print(f.__name__, out)
print(math.asinh(inf), math.acosh(inf), math.erf(inf), math.erfc(-inf), math.erfc(inf))
print(math.atanh(0.0), math.asinh(-0.0), math.acosh(1.0), math.erf(0.0))
show(math.acosh, 0.5)
show(math.atanh, 1.0)
show(math.atanh, -1.0)
print(math.isnan(math.acosh(nan)), math.isnan(math.atanh(nan)))

# gamma / lgamma: exact at small integers, rounded elsewhere
print([math.gamma(float(n)) for n in range(1, 24)] == [float(math.factorial(n - 1)) for n in range(1, 24)])
print(math.gamma(5), math.gamma(23.0), math.lgamma(1.0), math.lgamma(2.0))
print([round(math.gamma(x), 10) for x in [0.5, 1.5, -0.5, -1.5, 2.5, 3.5]])
print([round(math.lgamma(x), 10) for x in [0.5, 3.0, 10.0, 100.0, -0.5, -2.5]])
print(math.gamma(inf), math.lgamma(inf), math.lgamma(-inf), math.isnan(math.gamma(nan)))
print(math.gamma(-200.5) == 0.0)
for x in [0.0, -0.0, -1.0, -2.0, -inf, 172.0, 200.0, 5e-324]:
    show(math.gamma, x)
for x in [0.0, -1.0, -3.0, 1e308]:
    show(math.lgamma, x)

# dist
print(math.dist((0, 0), (3, 4)), math.dist([1.0], [4.0]), math.dist((), ()))
print(math.dist((1, 2, 3), (1, 2, 3)), math.dist(iter([0, 0]), (6, 8)))
print(math.dist((0, 0), (inf, 1)), math.isnan(math.dist((0,), (nan,))))
show(math.dist, (1, 2), (1,))
show(math.dist, (1, 2))

# CPython's error rules for the older functions: overflow is OverflowError, a NaN from a
# non-NaN argument or a pole is ValueError, NaN passes through, logs of huge ints work
for f, args in [(math.exp, (1000,)), (math.expm1, (1000,)), (math.sinh, (1000,)),
                (math.cosh, (-1000,)), (math.pow, (10.0, 400)), (math.pow, (-10.0, 401)),
                (math.pow, (0.0, -1.0)), (math.pow, (-8.0, 1 / 3)), (math.pow, (inf, 2)),
                (math.pow, (-inf, 3)), (math.pow, (-inf, -3)), (math.pow, (-inf, 2.5)),
                (math.pow, (0.5, inf)), (math.pow, (2.0, -inf)), (math.pow, (-1.0, inf)),
                (math.pow, (1.0, nan)), (math.pow, (nan, 0.0)), (math.pow, (nan, 1.0)),
                (math.pow, (2, 10)), (math.pow, (2.0,)),
                (math.exp, (inf,)), (math.exp, (-inf,)), (math.log, (0.0,)), (math.log, (-1,)),
                (math.log, (nan,)), (math.log2, (nan,)), (math.log2, (0,)), (math.log10, (-0.5,)),
                (math.log1p, (nan,)), (math.log1p, (-1.0,)), (math.asin, (nan,)),
                (math.asin, (2.0,)), (math.acos, (-1.5,)), (math.sin, (inf,)),
                (math.cos, (-inf,)), (math.tan, (inf,)), (math.log, (8, 2)), (math.log, (1.0, 1.0)),
                (math.log, (100, 10.0)), (math.log, (True,)), (math.log2, (2 ** 2000,)),
                (math.log10, (10 ** 400,)), (math.log, (10 ** 400,)), (math.log, (-(10 ** 400),)),
                (math.log, (3 ** 1000 + 1, 2.0)), (math.log2, (2 ** 1100 - 1,)), (math.log, ())]:
    show(f, *args)
