"""complex arithmetic: + - * / ** with int, float, bool and complex operands (reflected too)."""

nan, inf = float("nan"), float("inf")
a, b = 3 + 4j, 1 - 2j
print(a + b, a - b, a * b, a / b, b / a, -a, +a, a + 0, 0 + a)
print(a + 1, 1 + a, a - 1, 1 - a, a * 2, 2 * a, a / 2, 2 / a, a + 1.5, 1.5 - a, True + a, a * False)
print(a ** 2, a ** -2, a ** 0, a ** 1, a ** 3, a ** 10, a ** -7, a ** 100, a ** -100, b ** 101)
print(a ** 0.5, a ** b, 2 ** a, 2.5 ** a, a ** 2.5, a ** -0.5, 1j ** 1j, (-1) ** 0.5, (-8) ** (1 / 3))
print((-2.0) ** 0.5, (-4.0) ** 1.5, pow(-27, 1 / 3), pow(1j, 2), pow(2, 1j))
print(a ** 2.0, a ** complex(2, 0), (1 + 1e-9j) ** 1e9)
try:
    print(a ** 1e18)
except OverflowError as e:
    print("OverflowError", e)
print(abs(a), abs(b), abs(1j), abs(-2j), abs(complex(inf, nan)), abs(complex(nan, inf)), abs(complex(nan, 1)))
print(abs(complex(1e300, 1e300)), abs(complex(3e-320, 4e-320)))
print(bool(0j), bool(1j), bool(complex(0, -0.0)), bool(complex(nan, 0)), not 0j)
for x, y in [(1 + 1j, 1e-310), (1e300 + 1e300j, 1e-300 + 1e-300j), (1, 3j), (7 - 1j, 2 + 5j), (1, complex(nan, 1)),
             (1, complex(inf, 1)), (complex(inf, inf), 2), (5, 1e308 + 1e308j)]:
    print(x / y)
x = 1j
x += 1
x *= 2
x -= 0.5
x /= 2j
x **= 2
print(x, -x, +x, x.conjugate(), sum([1j, 2, 3.5, -1j]), sum([0.5j] * 4, 1j))
print(1j * 1j, 1j * -1j, (1 + 2j) * (1 - 2j), complex(inf, 0) * 1j, complex(inf, 1) * 2, complex(nan, 0) + 1)
for x, y in [(1j, 0), (0j, 0j), (1, 0j), (1.5, 0j), (0j, 0.0), (True, 0j), (1j, False)]:
    try:
        print(x / y)
    except ZeroDivisionError as e:
        print("ZeroDivisionError", e)
for x, y in [(0j, -1), (0j, 1j), (0j, 0), (0j, 2), (0j, 0.5), (0j, -0.5), (1e200j, 2), (2, 1e300j),
             (1e155 + 1e155j, 2), (10j, 400), (complex(inf, 0), 2), (0.0, -1j)]:
    try:
        print(x ** y)
    except (ZeroDivisionError, OverflowError) as e:
        print(type(e).__name__, e)
try:
    pow(1j, 2, 3)
except ValueError as e:
    print("ValueError", e)
try:
    abs(complex(1e308, 1e308))
except OverflowError as e:
    print("OverflowError", e)
for f in [lambda: 1j // 2, lambda: 1j % 2, lambda: 2 // 1j, lambda: 1j << 1, lambda: 1j & 1, lambda: ~1j,
          lambda: 1j + "a", lambda: "a" * 1j, lambda: [1] * 1j, lambda: 1j @ 1j]:
    try:
        print(f())
    except TypeError as e:
        print("TypeError", e)
