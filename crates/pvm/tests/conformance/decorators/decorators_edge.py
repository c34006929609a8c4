"""Decorators: stacking order, arguments, on classes, functools.wraps, class-based, property/classmethod
stacks, decorators returning non-functions, evaluation order."""
import functools

order = []


def tag(name):
    order.append(f"make {name}")

    def deco(f):
        order.append(f"apply {name}")

        @functools.wraps(f)
        def wrapper(*a, **k):
            return f"{name}({f(*a, **k)})"
        return wrapper
    return deco


@tag("outer")
@tag("inner")
def hello(who="world"):
    """Say hello."""
    return f"hello {who}"


print(hello(), hello(who="you"), hello.__name__, hello.__doc__, hello.__wrapped__.__name__, order)


class Count:
    def __init__(self, f):
        functools.update_wrapper(self, f)
        self.f, self.n = f, 0

    def __call__(self, *a):
        self.n += 1
        return self.f(*a)


@Count
def sq(x):
    return x * x


print(sq(3), sq(4), sq.n, sq.__name__)


def register(cls):
    cls.registered = True
    return cls


@register
class Thing:
    @property
    def p(self):
        return "prop"

    @classmethod
    @functools.lru_cache(maxsize=None)
    def cm(cls, x):
        return (cls.__name__, x)

    @staticmethod
    def sm(x):
        return x + 1


t = Thing()
print(Thing.registered, t.p, Thing.cm(1), t.cm(1), Thing.sm(1), t.sm(2))


def to_value(f):
    return f()


@to_value
def computed():
    return 42


print(computed)
calls = []


def d(n):
    calls.append(n)
    return lambda f: f


@d(1)
@d(2)
@(lambda f: f)
def ev():
    pass


print(calls)


@functools.lru_cache(maxsize=2)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


print(fib(12), fib.cache_info())


@functools.singledispatch
def show(x):
    return f"obj {x}"


@show.register
def _(x: int):
    return f"int {x}"


@show.register(list)
def _(x):
    return f"list {len(x)}"


print(show(1), show([1, 2]), show("s"), show(True))
