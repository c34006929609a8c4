import functools

def deco(fn):
    @functools.wraps(fn)
    def inner(*a, **k):
        """inner doc"""
        return fn(*a, **k) * 2
    return inner

@deco
def double_me(x: int) -> int:
    """Return x."""
    return x

print(double_me(21))
print(double_me.__name__, double_me.__qualname__, double_me.__doc__, double_me.__module__)
print(double_me.__annotations__)
print(double_me.__wrapped__(21))

def plain(): pass
plain.extra = 1
def w(): pass
w.extra = 0
w.other = 2
functools.update_wrapper(w, plain)
print(w.__name__, w.extra, w.other, w.__wrapped__ is plain)
def w2(): pass
r = functools.update_wrapper(w2, plain, assigned=('__doc__',), updated=())
print(r is w2, w2.__name__, hasattr(w2, 'extra'), w2.__wrapped__ is plain)
print(functools.WRAPPER_ASSIGNMENTS)
print(functools.WRAPPER_UPDATES)
class Callable:
    def __call__(self): return 1
c = Callable()
def w3(): pass
functools.update_wrapper(w3, c)
print(w3.__name__, w3.__wrapped__ is c)
def twice(fn):
    return functools.wraps(fn)(lambda *a: fn(fn(*a)))
@twice
def inc(x):
    return x + 1
print(inc(1), inc.__name__)
@deco
@deco
def stacked(x):
    return x
print(stacked(1), stacked.__wrapped__.__wrapped__(1), stacked.__name__)
