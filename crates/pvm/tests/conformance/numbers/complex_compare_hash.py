"""complex equality (exact against ints), ordering is a TypeError, hash equal to CPython's."""

a = 3 + 4j
print(a == 3 + 4j, a != 3 + 4j, 1 + 0j == 1, 1 == 1 + 0j, 1.0 == 1 + 0j, 1j == 1, 1j == "1j", 1j != None)
print(complex(2 ** 53) == 2 ** 53 + 1, complex(2 ** 53) == 2 ** 53, 2 ** 53 + 1 == complex(2 ** 53), True == 1 + 0j)
print(complex(float("nan"), 0) == complex(float("nan"), 0), 0j == -0j, complex(1e308 * 10, 0) == float("inf"))
print({1: "int"}[1 + 0j], {1.5 + 0j: "c"}[1.5], 1j in [0, 1j], 1j in {1j: 1}, {1, 1 + 0j, 1.0}, len({1j, 1j + 0}))
for v in [1 + 0j, 1.5 + 0j, 1 + 2j, -1 + 0j, -1j, complex(2 ** 61, 3), 3j, 0j, -0j, complex(1e300, -1e300),
          complex(float("inf"), 0), complex(0, float("-inf")), complex(-2, -1), complex(0.1, 0.7), complex(2 ** 62, 2 ** 62)]:
    print(repr(v), hash(v))
print(hash(1 + 0j) == hash(1), hash(1.5 + 0j) == hash(1.5), hash(0j) == hash(0), hash(-1 + 0j) == hash(-1))
for op in ["<", "<=", ">", ">="]:
    try:
        {"<": lambda: 1j < 2j, "<=": lambda: 1j <= 1, ">": lambda: 1 > 1j, ">=": lambda: 1j >= 1.0}[op]()
    except TypeError as e:
        print("TypeError", e)
for f in [lambda: sorted([1j, 2j]), lambda: max(1j, 2j), lambda: min([3, 1j])]:
    try:
        f()
    except TypeError as e:
        print("TypeError", e)
print(sorted([3, 1, 2], key=lambda x: (x * 1j).imag), max([1j, 3j, 2j], key=abs))
