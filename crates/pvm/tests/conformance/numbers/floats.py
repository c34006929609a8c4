vals = [0.1, 1e16, 1e-5, 1e-4, 5e-324, 1.7976931348623157e308, -0.0, 1/3, 2/3, float(2**53 + 1), 123456789012345678.0, 1e22, 0.5, 100.0, 1.5e-10]
print(vals)
print([str(v) for v in vals[:5]], repr(float("inf")), float("-inf"), float("nan"), float(" 1.5 "), float("1e3"))
print(round(2.5), round(3.5), round(-2.5), round(2.675, 2), round(1234.5678, -2), round(7, -1), round(0.5), round(1.5))
print(int(3.9), int(-3.9), 7.0 // 2, 7.0 % 2.5, -7.0 % 2.5, divmod(7.5, 2), 2.0 ** 0.5, 10 ** -2)
print((0.1).as_integer_ratio(), (2.5).is_integer(), (3.0).is_integer(), float.fromhex("0x1.8p1"), (1.5).hex())
print(1e308 * 10, -1e308 * 10, 0.1 + 0.7, 1.1 * 3, 3 * 0.1 == 0.3, abs(-2.5), 1e-320 / 10)
try: 1.0 / 0
except ZeroDivisionError as e: print("ZeroDivisionError", e)
try: int(float("nan"))
except ValueError as e: print("ValueError", e)
