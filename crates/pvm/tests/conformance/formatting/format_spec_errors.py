# Malformed format specs raise CPython's ValueError messages, for every builtin type that
# formats (the spec parser is shared).
values = [1.0, 5, "ab", 1 + 2j, True, 2**80]
specs = ["10.3xz", ".", ",_", "_,", "=10", "0>10", ">+12.3f", "*^20g", "10.2", "q"]
for v in values:
    for s in specs:
        try:
            print(type(v).__name__, repr(s), repr(format(v, s)))
        except (ValueError, TypeError) as e:
            print(type(v).__name__, repr(s), type(e).__name__, e)
