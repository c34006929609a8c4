import math
from fractions import Fraction as F

a, b = F(1, 3), F(1, 6)
print(a + b, a - b, a * b, a / b, a // b, a % b, divmod(F(7, 2), F(1, 3)))
print(a + 1, 1 + a, a - 1, 1 - a, a * 3, 3 * a, a / 2, 2 / a, 7 // a, 7 % F(2, 3))
print(a + 0.5, 0.5 + a, a * 1.5, a / 0.5, a + 1j, (1 + 2j) * F(1, 2))
print(F(7, 3) ** 2, F(7, 3) ** -2, F(-2, 3) ** -3, F(4, 9) ** F(1, 2), F(2) ** 0.5, F(2, 3) ** F(2))
print(2 ** F(3), 2 ** F(-1), 2 ** F(1, 2), 2.0 ** F(3), F(-8) ** F(1, 3))
print(-a, +a, abs(F(-1, 2)), F(-7, 2) // 2, F(-7, 2) % 2, F(7, 2) // -2)
for op in [lambda: F(1, 2) / 0, lambda: F(1, 2) / F(0), lambda: F(0) ** -1, lambda: F(1) // 0, lambda: 1 / F(0)]:
    try:
        op()
    except ZeroDivisionError as e:
        print("ZeroDivisionError", e)
try:
    F(1, 2) + "x"
except TypeError as e:
    print("TypeError", e)
print(sum([F(1, n) for n in range(1, 11)]), math.prod([F(1, 2)] * 5) if hasattr(math, "prod") else "")
total = F(0)
for i in range(1, 20):
    total += F(1, i * (i + 1))
print(total, float(total))
