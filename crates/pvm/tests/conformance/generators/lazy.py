def naturals():
    n = 0
    while True:
        yield n; n += 1
def take(it, k):
    out = []
    for x in it:
        if len(out) == k: break
        out.append(x)
    return out
print(take((n * n for n in naturals() if n % 3 == 0), 5))
def fib():
    a, b = 0, 1
    while True:
        yield a; a, b = b, a + b
print(take(fib(), 12))
it = iter([1, 2, 3]); print(next(it), list(it), next(it, "done"))
print(list(zip(naturals(), "abc")), list(enumerate("xy", 5)))
