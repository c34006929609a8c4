"""Scoping edge cases: nonlocal chains, class scopes, comprehension scopes, global in nested, del of closures."""
x = "global"


def outer():
    x = "outer"

    def mid():
        nonlocal x
        x = "mid"

        def inner():
            nonlocal x
            x += "+inner"
            return x
        return inner()
    r = mid()
    return r, x


print(outer())


class K:
    x = "class"
    ys = [x for _ in range(2)]
    zs = [(lambda: x)() for _ in range(1)]

    def m(self):
        return x


print(K.ys, K.zs, K().m())


def counter():
    n = 0

    def inc(by=1):
        nonlocal n
        n += by
        return n
    return inc


c = counter()
print(c(), c(), c(5), c.__closure__ is not None if hasattr(c, "__closure__") else True)


def g():
    global x
    x = "changed"
    return [x for x in range(3)], x


print(g(), x)


def late():
    fs = [lambda: i for i in range(3)]
    gs = [lambda i=i: i for i in range(3)]
    return [f() for f in fs], [f() for f in gs]


print(late())


def shadow():
    try:
        print(y)
    except NameError as e:
        print("NameError", e)
    y = 1
    return y


y = "module y"
try:
    shadow()
except UnboundLocalError as e:
    print("UnboundLocalError", e)


def delclosure():
    v = 1

    def f():
        return v
    del v
    try:
        f()
    except NameError as e:
        print(type(e).__name__, e)


delclosure()


def walrus():
    data = [1, 5, 2, 8]
    if (n := len(data)) > 3:
        print("long", n)
    print([m for v in data if (m := v * 2) > 4], m)


walrus()


class Outer:
    a = 1

    class Inner:
        try:
            b = a
        except NameError as e:
            b = str(e)


print(Outer.Inner.b)


def gen_scope():
    t = 10
    return list(t + i for i in range(3))


print(gen_scope())
