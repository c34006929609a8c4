"""complex literals, repr/str of every shape (signed zeros, nan, inf, exponents), attributes."""

nan, inf = float("nan"), float("inf")
print(1j, 2j, -1j, 1 + 2j, 1 - 2j, -1 - 2j, -(0j), 0j, -0.0 + 0j, 0.5j, 1e-3j, 1.5e300j, 1_0j, 0x10 + 1j)
print(complex(-0.0, -0.0), complex(0.0, -0.0), complex(-0.0, 0.0), complex(0.0, 0.0))
print(complex(nan, inf), complex(inf, nan), complex(-inf, -nan), complex(nan, -inf), complex(-nan, 1))
print(complex(1e16, 1e-5), complex(1.5, 2.25), complex(123456789012345678, 0.1), complex(1e-7, 1e22))
print(complex(10.0, 100.0), complex(1e15, 1e16), complex(0.1, 0.2) + complex(0.2, 0.1))
print(str(1 + 2j), repr(1 + 2j), [1j, -1j], (2j,), {"k": 3 - 0j}, f"{1j}", f"{1j!r}", "%s %r" % (1j, 2j))
print(type(1j), type(1j).__name__, isinstance(1j, complex), isinstance(1j, (int, float)))
c = 1.5 - 2.5j
print(c.real, c.imag, c.conjugate(), type(c.real).__name__, c.__complex__(), c.__getnewargs__())
print((3).real, (3).imag, (3.5).imag, (3.5).real, (3).conjugate(), (3.5).conjugate(), True.imag, True.conjugate())
print(1j.imag, 0j.real, 2e3j.imag, (1j * 1j).real)
try:
    c.x = 1
except AttributeError as e:
    print("AttributeError", e)
try:
    c.real = 2.0
except AttributeError as e:
    print("AttributeError")


class Sub(complex):
    pass


s = Sub(1, 2)
print(type(s).__name__, s, repr(s), s + 1, type(s + 1).__name__, isinstance(s, complex), s.real, s.imag)
s.tag = "subclasses have a __dict__"
print(s.tag, complex(s), type(complex(s)).__name__, s == 1 + 2j)
