def trace(tag):
    def deco(fn):
        def wrapper(*a, **k):
            print(tag, fn.__name__, a, k)
            return fn(*a, **k)
        wrapper.__name__ = fn.__name__
        return wrapper
    return deco
@trace("call")
def add(a, b=0):
    return a + b
print(add(2, b=3))
def twice(fn):
    return lambda *a: fn(fn(*a))
@twice
def inc(x):
    return x + 1
print(inc(5))
class Reg:
    items = []
    @classmethod
    def register(cls, f):
        cls.items.append(f.__name__)
        return f
@Reg.register
def alpha(): pass
@Reg.register
def beta(): pass
print(Reg.items)
