import math
print(math.sqrt(2), math.floor(-2.5), math.ceil(2.1), math.log(100, 10), math.log2(8), math.log10(1000), math.exp(0))
print(math.sin(0.5), math.cos(0.5), math.atan2(1, 2), math.hypot(3, 4), math.pow(2, 10), math.degrees(math.pi), math.radians(180))
print(math.isclose(0.1 + 0.2, 0.3), math.fsum([0.1] * 10), math.isqrt(99), math.factorial(20), math.comb(10, 3), math.perm(5, 2), math.prod([1, 2, 3, 4]))
print(math.gcd(12, 18), math.lcm(4, 6), math.trunc(-3.7), math.copysign(3, -0.0), math.isnan(math.nan), math.isinf(math.inf), math.tau)
try:
    math.sqrt(-1)
except ValueError as e:
    print(e)
