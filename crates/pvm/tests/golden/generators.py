def fib():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b
def take(n, it):
    for _ in range(n):
        yield next(it)
print(list(take(50, fib()))[-1], sum(x for x in range(1000) if x % 3))
