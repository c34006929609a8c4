from decimal import Decimal, getcontext
import decimal

print(Decimal("0.1") + Decimal("0.2"), Decimal(0.1), Decimal(-0.0), Decimal("1.30") * 2, Decimal(1) / 3)
print(str(Decimal("1E+3")), str(Decimal("0.0000001")), str(Decimal("-0E-7")), str(Decimal("123E-2")))
print(Decimal("1.23E+5").to_eng_string(), Decimal("1.23E-7").to_eng_string(), repr(Decimal("-1.50")))
print(Decimal((0, (1, 2, 3), -2)), Decimal((1, (), "F")), Decimal("nan123"), Decimal("-sNaN"), Decimal("Inf"))
print(Decimal("-0.0"), Decimal("1e5"), Decimal(".5"), Decimal("5."), Decimal("1_000.5"), Decimal(" 12 "), Decimal(10 ** 30))
print(Decimal(1).as_tuple(), Decimal("-Inf").as_tuple(), Decimal("-1.50").as_tuple(), Decimal("NaN").as_tuple())
print(Decimal("1.5").as_integer_ratio(), Decimal("-0.125").as_integer_ratio(), Decimal(0).as_integer_ratio())
print(int(Decimal("-7.9")), float(Decimal("0.1")), round(Decimal("2.5")), round(Decimal("3.5")), round(Decimal("2.675"), 2))
print(Decimal("2.675").__round__(-1), Decimal("1.10") == Decimal("1.1"), Decimal(1) == 1, Decimal("0.5") == 0.5)
print(hash(Decimal("0.5")) == hash(0.5), hash(Decimal(7)) == hash(7), hash(Decimal("1.10")) == hash(Decimal("1.1")))
print(sorted([Decimal("1.5"), Decimal(-2), Decimal("1.50"), Decimal("Infinity"), Decimal("-0")]))
print(Decimal(3) < 4, Decimal("1.5") > 1.4, Decimal("NaN") == Decimal("NaN"), Decimal("-Inf") < -10 ** 100)
print(Decimal("12.5").adjusted(), Decimal("0.001").adjusted(), Decimal("NaN").is_nan(), Decimal("-0").is_signed(), Decimal(0).is_zero())
print(Decimal("-3.5").copy_abs(), Decimal("3.5").copy_negate(), Decimal("3.5").copy_sign(Decimal("-1")), abs(Decimal("-2.50")), -Decimal("0"))
print(Decimal.from_float(0.25), Decimal.from_float(3), Decimal(1).compare(2), Decimal("NaN").compare(1), max(Decimal(1), Decimal(2)))
print(getcontext().prec, getcontext().rounding, decimal.ROUND_HALF_EVEN)
