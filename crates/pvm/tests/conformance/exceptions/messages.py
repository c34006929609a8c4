cases = [lambda: 1 / 0, lambda: 1 % 0, lambda: [][1], lambda: int("x1"), lambda: None.foo,
         lambda: "a" + 1, lambda: 1 + "a", lambda: [1].index(5), lambda: {}.pop("z"),
         lambda: (1, 2)[5], lambda: float("abc"), lambda: int(2.5e400 if False else float("inf")),
         lambda: "abc".index("z"), lambda: len(5), lambda: iter(5), lambda: next(iter([])),
         lambda: [1, 2].remove(7), lambda: divmod(1, 0), lambda: 2 ** -1 // 0, lambda: undefined_name]
for c in cases:
    try:
        c()
    except Exception as e:
        print(type(e).__name__ + ":", e)
