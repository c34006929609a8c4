for a, b in [(7, 3), (-7, 3), (7, -3), (-7, -3), (0, 5)]:
    print(a, b, a // b, a % b, divmod(a, b), a / b, -a, abs(a), a ** 2)
print(int(-0.5), int(2.9999), round(-0.5), round(1.25, 1), round(1.35, 1), round(12345, -3), round(-12345, -2))
print(max(1, 2.0), min(-0.0, 0), 3 == 3.0, hash(3) == hash(3.0), 1 / 3 * 3 == 1, (-1) ** 0.5 if False else "skip")
print((10).bit_count() if hasattr(int, "bit_count") else 2, (7).bit_length(), (-8) >> 1, -8 << 2, 6 & -3, 6 | -3)
print(int("  -12  "), int("+7"), int("0o17", 0), int("ff", 16), int("Z", 36), str(10 ** 30), len(str(2 ** 1000)))
