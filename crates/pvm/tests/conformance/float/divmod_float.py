"""float //, % and divmod: sign of the result follows the divisor; mixed int/float; fmod differs."""
import math
pairs = [(7.5, 2), (-7.5, 2), (7.5, -2), (-7.5, -2), (0.0, 3), (-0.0, 3), (1e-300, 1e300), (5, 0.5), (-5, 0.3), (1e20, 3.0)]
for a, b in pairs:
    print(a, b, a // b, a % b, divmod(a, b), math.fmod(a, b), a - (a // b) * b)
print(-1e-20 % 1.0, 1e-20 % -1.0, 3 % -0.0 if False else "skip", (-0.0) % 5, 0.0 % -5, divmod(-0.0, 1))
print(7 // 2.0, -7 // 2.0, 7 % 2.5, -7 % 2.5, 2 ** 0.5, 4 ** 0.5, (-8) ** 2.0, 10 / 4, -10 / 4, 1 / 3 * 3 == 1.0)
print(math.remainder(7, 2), math.remainder(-7, 2), math.remainder(5, 2), math.modf(-3.25), math.frexp(48.0), math.ldexp(0.75, 6))
print(sum([0.1] * 10), math.fsum([0.1] * 10), 0.1 * 3, 1.1 + 2.2, 3.3 - 1.1, 1e16 + 1 - 1e16, (0.1).hex())
