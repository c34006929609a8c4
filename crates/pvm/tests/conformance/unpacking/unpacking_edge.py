"""Unpacking: starred targets everywhere, nested, in for/with/comprehensions, errors with CPython's messages."""
a, *b, c = range(6)
print(a, b, c)
(x, y), [z, *w] = "ab", (1, 2, 3)
print(x, y, z, w)
*h, = "xyz"
print(h)
for i, (j, *k) in [(1, (2, 3, 4)), (5, (6,))]:
    print(i, j, k)
print([m + n for m, *n in [(1, 2), (3,)] if True] if False else [(m, n) for m, *n in [(1, 2), (3,)]])
d = {"k": 1, **{"l": 2}, **dict(m=3)}
print(d, [*range(2), *"ab", *{1: 0}], {*(), *[1, 1, 2]}, (*[1], 2))


def f(*args, **kw):
    return args, kw


print(f(*[1, 2], 3, *(4,), k=1, **{"z": 2}), f(**{}, **{"a": 1}))
first, second = {"p": 1, "q": 2}
print(first, second)
s = slice(1, 3)
lst = [0, 1, 2, 3]
lst[s], q = ("A", "B"), "Q"
print(lst, q)
obj = type("O", (), {})()
obj.a, obj.b = 1, 2
print(obj.a, obj.b)
i = 0
data = [0, 0]
i, data[i] = 1, 5
print(i, data)
for bad in ["a, b = 1, 2, 3", "a, b, c = 1, 2", "a, *b, c = [1]", "a, b = 1", "a, b = None", "(a, b), c = [1, 2], 3",
            "a, = []", "[a, b] = iter([1])"]:
    try:
        if bad == "a, b = 1, 2, 3":
            p, r = 1, 2, 3
        elif bad == "a, b, c = 1, 2":
            p, r, t = 1, 2
        elif bad == "a, *b, c = [1]":
            p, *r, t = [1]
        elif bad == "a, b = 1":
            p, r = 1
        elif bad == "a, b = None":
            p, r = None
        elif bad == "(a, b), c = [1, 2], 3":
            (p, r), t = [1, 2, 3], 3
        elif bad == "a, = []":
            p, = []
        else:
            [p, r] = iter([1])
    except (ValueError, TypeError) as e:
        print(bad, "->", type(e).__name__, e)
