"""Functions: every parameter kind with defaults, keyword-only, positional-only errors, *args/**kwargs
forwarding, mutable defaults, attributes, __defaults__/__kwdefaults__, recursion, closures over loop vars."""


def f(a, b=2, /, c=3, *args, d, e=5, **kw):
    return a, b, c, args, d, e, kw


print(f(1, d=4), f(1, 2, 3, 4, 5, d=6, z=7), f(1, c=9, d=0))
for call in [lambda: f(), lambda: f(1), lambda: f(1, 2, 3, c=4, d=5), lambda: f(a=1, d=2), lambda: f(1, d=1, d2=2, e=3, e2=4)]:
    try:
        print(call())
    except TypeError as ex:
        print("TypeError", ex)


def g(x, y):
    return x - y


print(g(*[5], **{"y": 2}), g(**{"y": 1, "x": 3}))
for call in [lambda: g(1, 2, 3), lambda: g(1, x=2), lambda: g(1, z=2), lambda: g(**{"x": 1}), lambda: g(*[1], *[2], 3)]:
    try:
        print(call())
    except TypeError as ex:
        print("TypeError", ex)


def acc(item, bucket=[]):
    bucket.append(item)
    return bucket


print(acc(1), acc(2), acc.__defaults__)


def kwonly(*, a, b=1):
    return a + b


print(kwonly(a=1), kwonly.__kwdefaults__, kwonly.__name__, kwonly.__qualname__)
try:
    kwonly(1)
except TypeError as ex:
    print("TypeError", ex)


def outer():
    def inner():
        """doc"""
        return 1
    return inner


i = outer()
print(i.__name__, i.__qualname__, i.__doc__, i.__module__)
f.attr = "custom"
print(f.attr, getattr(f, "missing", "default"))


def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


print(fact(20))


def annotated(x: int, *, y: "str" = "s") -> list:
    return [x, y]


print(annotated.__annotations__, annotated(1))
lam = lambda x, *a, k=1, **kw: (x, a, k, kw)
print(lam(1, 2, k=3, m=4), lam.__name__)


def varkw(**kw):
    return sorted(kw.items())


print(varkw(b=1, a=2), varkw(**{"c": 3}, d=4))
try:
    varkw(**{"a": 1}, a=2)
except TypeError as ex:
    print("TypeError", ex)
try:
    varkw(**{1: 2})
except TypeError as ex:
    print("TypeError", ex)
try:
    g(*1)
except TypeError as ex:
    print("TypeError", ex)
try:
    g(**[1])
except TypeError as ex:
    print("TypeError", ex)
