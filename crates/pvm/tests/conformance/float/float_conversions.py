"""int <-> float conversions and comparisons at the edges of exact representability."""
big = 2**53
print(float(big) == big, float(big + 1) == big + 1, big + 1 == float(big + 1), int(float(big + 1)), float(big + 1) < big + 1)
print(2**63 == 2.0**63, 2**63 - 1 < 2.0**63, 10**16 + 1 > 1e16, 10**400 > 1e308, -(10**400) < -1e308, 10**400 > float("inf"))
print(1 == 1.0, hash(1) == hash(1.0), 0.5 == 1/2, 9007199254740993 == 9007199254740992.0, int(1e20), int(-1.9e15), int(1e-5))
print(float("1e500"), float("-1e500"), float("1e-500"), float("0.1"), float(0.1) == 0.1, float(2**1023) * 2)
vals = [3, 3.0, True, 2.5, -1, 10**20, 1e20]
print(sorted(vals), sorted(vals, reverse=True), max(vals), min(vals), sum(vals), 3 in [3.0], {3: "a"}[3.0])
print(1.0.__int__() if False else int(1.0), (2.0).__eq__(2), 7 / 7, type(7 / 7).__name__, 6 // 4.0)
print(round(2**53 + 1.0) == 2**53, float.__name__, isinstance(1.0, float), isinstance(1, float), issubclass(bool, float))
print(f"{0.1:.20f}", f"{1/3:.17g}", f"{2**0.5:.50f}"[:30], f"{1e-7:f}", f"{123456789.0:e}", format(1e16, "f"))
