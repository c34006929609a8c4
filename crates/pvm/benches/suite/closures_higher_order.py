"""Closures and higher-order functions: counters with nonlocal state, function composition,
partial application by nested functions, callbacks passed through map/filter/sorted."""


def make_counter(step):
    count = 0

    def tick():
        nonlocal count
        count += step
        return count

    return tick


def compose(*fs):
    def run(x):
        for f in reversed(fs):
            x = f(x)
        return x

    return run


def adder(n):
    return lambda x: x + n


def multiplier(n):
    def mul(x):
        return x * n % 1000003

    return mul


def memoize(f):
    cache = {}

    def wrapper(n):
        if n not in cache:
            cache[n] = f(n)
        return cache[n]

    return wrapper


@memoize
def stairs(n):
    if n < 3:
        return n
    return (stairs(n - 1) + stairs(n - 2) + stairs(n - 3)) % 1000000007


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(2):
    counters = [make_counter(i) for i in range(1, 11)]
    pipeline = compose(adder(3), multiplier(7), adder(-1), multiplier(13))
    acc = 0
    for i in range(400000):
        acc += counters[i % 10]()
        acc = pipeline(acc) + i
    total = sum(map(pipeline, filter(lambda v: v % 3, range(700000))))
    ranked = sorted(range(100000), key=lambda v: (pipeline(v) % 101, -v))
    print(acc, total, ranked[:5], [stairs(n) for n in range(900)][-1])
