print(hash(0.5), hash(1.5), hash(-0.5), hash(0.1), hash(1e300), hash(2**61), hash(-1), hash(-2), hash(float('inf')), hash(1e-300))
from fractions import Fraction
print(hash(Fraction(1, 2)), hash(Fraction(1, 3)), hash(Fraction(-1, 3)))
vals = [0.0, -0.0, 1.0, -1.0, 2.0**60, 2.0**61, 2.0**62, 2.0**100, -2.0**100, 1e308, 5e-324, 2.2250738585072014e-308, 0.3333333333333333, 123.456, -7.25, 1.7976931348623157e308, 9007199254740993.0]
print([hash(v) for v in vals])
print(all(hash(float(i)) == hash(i) for i in [0, 1, -1, 2**53, -(2**60), 2**70, 10**20]))
print(hash(Fraction(1, 4)) == hash(0.25), {0.5: 1}[Fraction(1, 2)])
x = 1
for i in range(300):
    x = (x * 1103515245 + 12345) % 2**31
    vals.append(x / 7.0); vals.append(x * 1e-9 / 3.0); vals.append(-x * 1e12 / 11.0)
print(sum(hash(v) % 1000003 for v in vals))
