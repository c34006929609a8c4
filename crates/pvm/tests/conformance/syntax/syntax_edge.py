"""Syntax: chained comparisons (evaluation once), augmented assignment evaluation order, star in
subscripts (PEP 646), soft keywords as names, Ellipsis, string prefixes, del targets, semicolons,
conditional expressions, walrus in comprehensions and while, numeric literal forms."""
log = []


def v(x):
    log.append(x)
    return x


print(v(1) < v(2) < v(3), log)
log.clear()
print(v(3) < v(2) < v(1), log)


class T:
    def __getitem__(self, k):
        return k


t = T()
a = [1, 2]
print(t[*a], t[0, *a], t[*a, 3], t[1:2, ...], t[::2], t[:, 1])


class Box:
    def __init__(self):
        self.items = {"k": 1}


order = []


def get_box():
    order.append("box")
    return b


def key():
    order.append("key")
    return "k"


b = Box()
get_box().items[key()] += v(10)
print(b.items, order)
match = 1
case = 2
_ = 3
type = "shadow"
print(match + case + _, type)
del type
print(type(1).__name__)
print(..., Ellipsis is ..., rb"\n", Rb"x", br"y", "a" "b" 'c', u"unicode", r"\d+")
x = 1; y = 2; z = x + y
print(z)
lst = [0, 1, 2, 3, 4, 5]
del lst[0], lst[-1]
print(lst)
del lst[::2]
print(lst)
d = {"a": 1, "b": 2}
del d["a"]
print(d, 1 if d else 2, "yes" if not d else "no")
n = 0
while (n := n + 1) < 3:
    pass
print(n, [y for x in range(3) if (y := x * 2)])
print(0b101, 0o17, 0xff, 1_000, 1e3, 1E-3, .5, 5., 0j + 1, 1_0.0_1, 0x_F)
print(not 1 == 2, -2 ** 2, (-2) ** 2, 2 ** -1, 7 // -2, -7 % 3, ~5, 1 < 2 == 2, 3 if 0 else 4 if 0 else 5)
s = "hello"
print(s[::-1], s[1:-1], s[-3:], s[10:], s[:-10], s[::3])
i = 5
i **= 2
i //= 3
i %= 5
i <<= 3
i |= 1
i ^= 3
i >>= 1
i &= 6
print(i)
f = lambda *, k=1: k
print(f(k=5), (lambda: (yield))().__class__.__name__ if False else "gen-lambda skipped")
assert True, "never"
try:
    assert 1 == 2, f"bad {1 + 1}"
except AssertionError as e:
    print("AssertionError", e)
print(*[1, 2], sep="-", end="!\n")
global_var = 1


def g():
    global global_var
    global_var += 1
    return global_var


print(g(), global_var)
