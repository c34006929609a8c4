from decimal import *

print(Decimal("1.2").quantize(Decimal("0.01")), Decimal("7.325").quantize(Decimal(".01"), rounding=ROUND_DOWN))
print(Decimal("7.325").quantize(Decimal(".01")), Decimal("7.335").quantize(Decimal(".01")), Decimal("-7.325").quantize(Decimal("1.")))
print(Decimal("123.456").quantize(Decimal("1E+1")), Decimal("0").quantize(Decimal("1E-5")), Decimal("Inf").quantize(Decimal("Inf")))
for r in [ROUND_UP, ROUND_HALF_UP, ROUND_CEILING, ROUND_FLOOR, ROUND_05UP]:
    print(r, Decimal("2.345").quantize(Decimal("0.01"), rounding=r), Decimal("-2.345").quantize(Decimal("0.01"), rounding=r))
for bad in [lambda: Decimal("1.2345").quantize(Decimal("1e-10"), context=Context(prec=3)),
            lambda: Decimal("Inf").quantize(Decimal(1)), lambda: Decimal(1).quantize(Decimal("1e-1000000000"))]:
    try:
        print(bad())
    except InvalidOperation as e:
        print("InvalidOperation", e)
print(Decimal(2).sqrt(), Decimal("0.0100").sqrt(), Decimal(4).sqrt(), Decimal("1e-3").sqrt(), Decimal(0).sqrt(), Decimal("-0").sqrt())
print(Decimal(100).sqrt(), Decimal("1E+4").sqrt(), Decimal("0.25").sqrt(), Decimal("Infinity").sqrt(), Decimal(10).sqrt())
with localcontext(prec=10, rounding=ROUND_DOWN):
    print(Decimal(2).sqrt(), Decimal(3).sqrt())
try:
    Decimal(-1).sqrt()
except InvalidOperation as e:
    print("InvalidOperation", e)
print(Decimal("123.456").normalize(), Decimal("100").normalize(), Decimal("0.00").normalize(), Decimal("-1.20E+3").normalize())
print(Decimal("-7.5").to_integral_value(), Decimal("7.5").to_integral_value(ROUND_HALF_UP), Decimal("1E+2").to_integral_value())
with localcontext() as c:
    print(Decimal("7.4").to_integral_exact(), c.flags[Inexact], Decimal("7").to_integral_exact())
import math
print(math.floor(Decimal("-7.5")), math.ceil(Decimal("7.1")), math.trunc(Decimal("-7.9")), math.floor(Decimal("3")))
price = Decimal("19.99")
qty = 3
tax = Decimal("0.0825")
subtotal = price * qty
total = (subtotal * (1 + tax)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
print(subtotal, total, f"{total}")
