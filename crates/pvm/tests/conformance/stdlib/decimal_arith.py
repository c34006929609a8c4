from decimal import Decimal, localcontext

a, b = Decimal("7.25"), Decimal("-2.5")
print(a + b, a - b, a * b, a / b, a // b, a % b, divmod(a, b), -a, +b, abs(b))
print(a + 1, 1 + a, a * 2, 2 / a, 10 - a, 3 % Decimal(2), 7 // Decimal("0.5"))
print(Decimal(-7) // 2, Decimal(-7) % 2, divmod(Decimal(-7), Decimal(2)), Decimal(10) % 3, Decimal(-10) % 3)
print(Decimal("10.5") // Decimal("0.2"), Decimal("10.5") % Decimal("0.2"), Decimal("0.0") % 5)
print(Decimal(2) ** 100, Decimal("1.1") ** 3, Decimal(-2) ** 3, Decimal(10) ** -3, Decimal(2) ** -2, Decimal("1.0") ** 2)
print(Decimal(0) ** -1, Decimal("Infinity") ** 2, Decimal("-Infinity") ** 3, Decimal("Inf") ** -1)
print(Decimal("-0") + Decimal("0"), Decimal("-0") + Decimal("-0"), Decimal("1") - Decimal("1"), Decimal("1E+999999") + 1)
print(Decimal("12345678901234567890123456789012345") + 0, Decimal("1e-1000000") * Decimal("1e-10"), Decimal("1e-1000026"))
print(Decimal("Infinity") + 1, Decimal("-Infinity") * -2, Decimal(1) / Decimal("Infinity"), Decimal("NaN") + 1)
print(sum([Decimal("0.1")] * 10), sum(Decimal(i) / 7 for i in range(5)))
with localcontext(prec=6):
    print(Decimal(1) / 7 * 7, Decimal("123.456789") * 1, Decimal(22) / 7, Decimal("1e10") + Decimal("1e-10"))
for bad in [lambda: Decimal(1) / 0, lambda: Decimal(0) / 0, lambda: Decimal(10) // 0, lambda: Decimal(10) % 0,
            lambda: Decimal("1e999999") * 10, lambda: Decimal("sNaN") + 1, lambda: Decimal(0) ** 0,
            lambda: Decimal(10 ** 30) // Decimal("0.0001"), lambda: Decimal("Inf") - Decimal("Inf"),
            lambda: Decimal("Inf") * 0, lambda: Decimal(1) + 1.5, lambda: Decimal("abc")]:
    try:
        print(bad())
    except ArithmeticError as e:
        print(type(e).__name__, e)
    except TypeError:
        print("TypeError")
