import math
from fractions import Fraction as F

print(F(0.1).limit_denominator(10), F(3.141592653589793).limit_denominator(1000))
print(F(3.141592653589793).limit_denominator(100), F(3.141592653589793).limit_denominator(10))
print(F(math.pi).limit_denominator(), F(math.e).limit_denominator(10 ** 6), F(1, 3).limit_denominator(5))
print(F(-0.1).limit_denominator(100), F(5, 7).limit_denominator(7), F(127, 254).limit_denominator(3))
print(F("0.333").limit_denominator(10), F(1.1).limit_denominator(1), F(0.6).limit_denominator(1))
try:
    F(1, 3).limit_denominator(0)
except ValueError as e:
    print("ValueError", e)
print([str(F(2 ** 0.5).limit_denominator(d)) for d in (1, 2, 5, 12, 29, 70, 1000)])
print(F(0).limit_denominator(1), F(10 ** 20 + 1, 10 ** 20).limit_denominator(10 ** 6))
