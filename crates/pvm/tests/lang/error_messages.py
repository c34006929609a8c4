tests = [
    lambda: 1 / 0, lambda: 1 % 0, lambda: 1.0 / 0, lambda: [][0], lambda: {}["k"], lambda: (1,)[5], lambda: "abc"[10],
    lambda: int("x"), lambda: float("y"), lambda: undefined_name, lambda: None.foo, lambda: (1).foo,
    lambda: "a" + 1, lambda: 1 + "a", lambda: [] + (), lambda: len(5), lambda: iter(5), lambda: next(iter([])),
    lambda: {}.pop("x"), lambda: [].pop(), lambda: [1].index(2), lambda: "a".index("b"), lambda: int(None),
    lambda: hash([]), lambda: {[]: 1}, lambda: (lambda x: x)(), lambda: (lambda x: x)(1, 2), lambda: (lambda: 0)(a=1),
    lambda: sorted([1, "a"]), lambda: 1 < "a", lambda: [1, 2] < "ab", lambda: abs("x"), lambda: -"x",
    lambda: "abc" * "d", lambda: [1, 2, 3][1:2:0], lambda: int("9" * 5000), lambda: chr(-1), lambda: ord("ab"),
    lambda: divmod(1, 0), lambda: 2 ** -1 // 0, lambda: object().x, lambda: type("A", (), {})().y,
    lambda: "{}".format(), lambda: "{0}{1}".format(1), lambda: "%d" % "x", lambda: "%s %s" % (1,),
    lambda: x_unbound(), lambda: dict(1), lambda: set(1), lambda: list(1), lambda: tuple(1), lambda: range(1.5),
    lambda: max([]), lambda: min(), lambda: getattr(1, "zz"), lambda: setattr(1, "a", 2), lambda: isinstance(1, 2),
    lambda: [].sort(key=1), lambda: "x".join([1]), lambda: b"a" + "b", lambda: round("x"),
]
for t in tests:
    try:
        t()
        print("no error")
    except Exception as e:
        print(type(e).__name__ + ":", e)
def f():
    x = x + 1
try:
    f()
except UnboundLocalError as e:
    print(e)
print(str.upper("a"), dict.get({"a": 1}, "a"), int.bit_length(5), list.append.__name__)
try:
    str.upper(1)
except TypeError as e:
    print(e)
