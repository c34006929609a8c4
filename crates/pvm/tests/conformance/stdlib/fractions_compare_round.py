import math
from fractions import Fraction as F

print(F(1, 3) < 0.34, F(1, 3) > F(1, 4), F(1, 2) == 0.5, F(1, 2) == F(2, 4), F(5, 1) == 5, F(1, 2) != 1)
print(F(1, 2) == complex(0.5, 0), F(1, 2) == complex(0.5, 1), F(1, 3) <= 1, F(1, 3) >= 0, 1 < F(3, 2))
print(F(1) < float("inf"), F(1) > float("-inf"), F(1) == float("nan"), F(1) < float("nan"))
print(sorted([F(1, 2), 0.25, 1, F(1, 3)]), max(F(2, 3), F(3, 5)))
print(hash(F(1, 2)) == hash(0.5), hash(F(5)) == hash(5), hash(F(-1)) == hash(-1), hash(F(1, 3)) == hash(F(2, 6)))
print({F(1, 2): "half"}[0.5], len({F(1, 2), 0.5, F(2, 4)}))
print(round(F(7, 2)), round(F(5, 2)), round(F(-5, 2)), round(F(1234, 100), 1), round(F(1234, 100), -1), round(F(1, 3), 3))
print(math.floor(F(-7, 2)), math.ceil(F(7, 2)), math.trunc(F(-7, 2)), int(F(-7, 2)), int(F(7, 2)), float(F(1, 3)))
print(bool(F(0)), bool(F(1, 9)), F(1, 3).limit_denominator(0) if False else "")
try:
    F(1, 2) < "a"
except TypeError as e:
    print("TypeError", e)
try:
    format(F(1, 3), ".3f")
except TypeError as e:
    print("TypeError", e)
print(type(round(F(7, 2))).__name__, type(round(F(7, 2), 1)).__name__, math.isclose(float(F(22, 7)), 3.142857142857143))
