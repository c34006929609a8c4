"""Fraction.real/imag/conjugate and mixed arithmetic with complex."""
from fractions import Fraction as F
a = F(3, 4)
print(a.real, a.imag, a.conjugate(), type(a.real).__name__, a + 1j, 1j * a, a == complex(0.75, 0), complex(a) if hasattr(a, '__complex__') else complex(float(a)))
print(F(1, 2) ** 2j if False else "", (F(1, 3) + 0j), F(2) * (1 + 1j))
