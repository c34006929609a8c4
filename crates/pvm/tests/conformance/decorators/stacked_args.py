"""Decorators: stacking order, decorators with arguments, preserving metadata with functools.wraps."""
import functools
calls = []
def trace(tag):
    def deco(f):
        @functools.wraps(f)
        def wrapper(*a, **k):
            calls.append(f"{tag}>{f.__name__}")
            r = f(*a, **k)
            calls.append(f"{tag}<{f.__name__}")
            return r
        return wrapper
    return deco
def double(f):
    def wrapper(*a):
        return 2 * f(*a)
    return wrapper
@trace("outer")
@trace("inner")
def add(a, b):
    "Add two numbers."
    return a + b
print(add(1, 2), calls, add.__name__, add.__doc__, add.__wrapped__.__name__)
@double
@double
def three():
    return 3
print(three(), three.__name__)
def repeat(n):
    def deco(f):
        def wrapper(*a, **k):
            return [f(*a, **k) for _ in range(n)]
        return wrapper
    return deco
@repeat(3)
def hi(name="x"):
    return f"hi {name}"
print(hi(), hi(name="y"))
registry = {}
def register(name=None):
    def deco(f):
        registry[name or f.__name__] = f
        return f
    return deco
@register()
def alpha(): return "a"
@register("beta!")
def beta(): return "b"
print(sorted(registry), registry["beta!"](), alpha())
def count_calls(f):
    def wrapper(*a):
        wrapper.calls += 1
        return f(*a)
    wrapper.calls = 0
    return wrapper
@count_calls
def noop():
    pass
noop(); noop()
print(noop.calls)
deco_list = [double, double, double]
@deco_list[0]
def one():
    return 1
print(one())
