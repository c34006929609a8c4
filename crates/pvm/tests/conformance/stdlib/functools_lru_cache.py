import functools

calls = []
@functools.lru_cache(maxsize=2)
def sq(x):
    calls.append(x)
    return x * x

print([sq(i) for i in (1, 2, 1, 3, 2, 1)])
print(calls)
print(sq.cache_info())
print(sq.cache_info().hits, sq.cache_info().misses, sq.cache_info()[3])
sq.cache_clear()
print(sq.cache_info())
print(sq.cache_parameters(), sq.__name__, sq.__wrapped__(4))

@functools.lru_cache
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(60), fib.cache_info())

@functools.cache
def fact(n):
    return 1 if n == 0 else n * fact(n - 1)
print(fact(20), fact.cache_info(), fact.cache_parameters())

@functools.lru_cache(maxsize=None, typed=True)
def t(x):
    return type(x).__name__
print(t(1), t(1.0), t(True), t.cache_info())
@functools.lru_cache()
def u(x):
    return type(x).__name__
print(u(1), u(1.0), u(True), u.cache_info())

@functools.lru_cache(maxsize=0)
def z(x):
    return x
print(z(1), z(1), z.cache_info())
@functools.lru_cache(maxsize=-5)
def neg(x):
    return x
print(neg(1), neg.cache_info())

@functools.lru_cache(maxsize=3)
def kw(a, b=0, *, c=0):
    return a + b + c
print(kw(1), kw(1, 2), kw(1, b=2), kw(a=1, b=2), kw(1, c=3), kw.cache_info())
try:
    kw([1])
except TypeError as e:
    print("TypeError", e)
try:
    functools.lru_cache("x")
except TypeError as e:
    print("TypeError", e)
info = sq.cache_info()
print(type(info).__name__, tuple(info), info._asdict() if hasattr(info, "_asdict") else None)
