"""complex(): numbers, strings (every accepted form), keywords, __complex__/__float__/__index__, errors."""

print(complex(), complex(1), complex(1, 2), complex(1.5, -2), complex(1j, 1j), complex(1 + 2j, 3 + 4j))
print(complex(real=1, imag=3), complex(imag=2), complex(True, False), complex(2 ** 60, -(2 ** 60)), complex(1j))
print(complex(-0.0), complex(0, -0.0), complex(-0.0, 0j), complex(1j, -0.0))
for s in ["1+2j", " (1+2j) ", "1", "2j", "-j", "+J", "j", "J", "1e3-2.5e-3j", "inf+nanj", "-infinityj", "1_000+2_0j",
          "1-j", "(3)", "1.j", ".5j", "-.5e+2-.5e-2J", "\t1+1j\n", "( 1 )", "NaN", "-inf", "1e400", "1e400j",
          "1E5", "00012j", "1.5+0j", "-0", "-0j", "(-0-0j)", "\u20031+1j\u2003"]:
    print(repr(s), complex(s))
for s in ["", " ", "1+", "1+2", "j1", "(1+2j", "1+2j)", "1 + 2j", "1__0", "_1", "1_", "1e", "nanx", "1+2jj",
          "1j+2", "()", "+", "1+-2j", "--1", "1e+", "i", "0x10", "1+2i", "( 1+2j ) x"]:
    try:
        print(complex(s))
    except ValueError as e:
        print(repr(s), "ValueError", e)
for args, kw in [(("1", 2), {}), ((1, "2"), {}), (([],), {}), ((1, []), {}), ((None,), {}), ((1, 2, 3), {}),
                 ((), {"x": 1}), ((1,), {"real": 2}), ((1, 2), {"imag": 3}), (({},), {})]:
    try:
        print(complex(*args, **kw))
    except TypeError as e:
        print("TypeError", e)


class C:
    def __complex__(self):
        return 5 + 6j


class F:
    def __float__(self):
        return 2.5


class I:
    def __index__(self):
        return 7


class Bad:
    def __complex__(self):
        return 1.0


print(complex(C()), complex(F()), complex(I()), complex(F(), F()), complex(1, I()), complex(C(), 1))
for f in [lambda: complex(Bad()), lambda: complex(1, C())]:
    try:
        print(f())
    except TypeError as e:
        print("TypeError", e)
print(float(1.5), int(2))
for f in [lambda: int(1j), lambda: float(1j), lambda: round(1j), lambda: float(object())]:
    try:
        f()
    except TypeError as e:
        print("TypeError", e)
