"""Decorator evaluation order, decorators returning non-functions, lambdas and arbitrary expressions."""
order = []
def make(tag):
    order.append(f"make {tag}")
    def deco(f):
        order.append(f"apply {tag}")
        return f
    return deco
@make("first")
@make("second")
def f():
    pass
print(order)
def to_value(f):
    return f()
@to_value
def computed():
    return 42
print(computed, type(computed).__name__)
@lambda f: f.__name__.upper()
def shout():
    pass
print(shout)
class Registry:
    def __init__(self):
        self.items = []
    def __call__(self, f):
        self.items.append(f.__name__)
        return f
reg = Registry()
@reg
def one(): pass
@reg
def two(): pass
print(reg.items)
def memo(f):
    cache = {}
    def wrapper(n):
        if n not in cache:
            cache[n] = f(n)
        return cache[n]
    wrapper.cache = cache
    return wrapper
@memo
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(60), len(fib.cache))
def bad_decorator(f):
    raise RuntimeError("decorator failed for " + f.__name__)
try:
    @bad_decorator
    def victim():
        pass
except RuntimeError as e:
    print(type(e).__name__, e)
print("victim not bound")
