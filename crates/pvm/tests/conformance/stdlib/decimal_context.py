from decimal import *

print(getcontext())
print(ExtendedContext)
print(BasicContext)
for r in [ROUND_DOWN, ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_CEILING, ROUND_FLOOR, ROUND_UP, ROUND_HALF_DOWN, ROUND_05UP]:
    with localcontext(prec=2, rounding=r):
        print(r, [str(+Decimal(x)) for x in ["1.25", "1.35", "-1.25", "1.20", "1.51", "-1.59", "1.01", "9.99", "1.05"]])
with localcontext() as c:
    c.prec = 5
    print(Decimal(1) / 7, Decimal("123456789") + 0, c.flags[Inexact], c.flags[Rounded], c.flags[DivisionByZero])
    c.traps[Inexact] = True
    try:
        Decimal(1) / 3
    except Inexact as e:
        print("Inexact", e)
    print(Decimal(1) / 4)
print(getcontext().prec, Decimal(1) / 7)
c = ExtendedContext.copy()
print(c.divide(Decimal(1), Decimal(0)), c.divide(Decimal(0), Decimal(0)), c.create_decimal("1.23456789012"), c.sqrt(Decimal(-4)))
print(c.flags[DivisionByZero], c.flags[InvalidOperation], c.flags[Overflow])
print(c.divide_int(Decimal(1), Decimal(0)), c.remainder(Decimal(7), Decimal(0)), c.add(Decimal("1E+999999"), Decimal("9E+999999")))
c.clear_flags()
print(c)
for bad in [lambda: Context(prec=0), lambda: Context(rounding="x"), lambda: setattr(getcontext(), "Emin", 5)]:
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
small = Context(prec=3, Emax=5, Emin=-5)
print(small.create_decimal("123456"), small.create_decimal("0.000001234"), small.create_decimal("9.999E+5") if False else "")
try:
    small.create_decimal("1E+10")
except Overflow as e:
    print("Overflow", e)
print(small.flags[Overflow], small.flags[Subnormal], small.Etiny(), small.Etop())
with localcontext(Context(prec=50)) as ctx:
    print(Decimal(2).sqrt(), ctx.prec)
print(issubclass(DivisionByZero, ZeroDivisionError), issubclass(InvalidOperation, ArithmeticError), issubclass(Overflow, Inexact))
