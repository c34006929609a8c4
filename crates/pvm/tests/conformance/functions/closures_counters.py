"""Closures as objects: counters, accumulators, memoizers, and function attributes."""
def make_counter(start=0, step=1):
    count = start
    def incr():
        nonlocal count
        count += step
        return count
    def reset():
        nonlocal count
        count = start
    incr.reset = reset
    return incr
c = make_counter(10, 5)
print(c(), c(), c())
c.reset()
print(c(), c.__name__, c.reset.__name__)
def accumulator():
    items = []
    def add(*xs):
        items.extend(xs)
        return sum(items)
    return add
acc = accumulator()
print(acc(1), acc(2, 3), acc())
def compose(*fs):
    def composed(x):
        for f in reversed(fs):
            x = f(x)
        return x
    return composed
inc = lambda x: x + 1
dbl = lambda x: x * 2
print(compose(inc, dbl)(5), compose(dbl, inc)(5), compose()(7))
def power_factory():
    return [lambda x, p=p: x ** p for p in range(4)]
print([f(3) for f in power_factory()])
def attrs():
    pass
attrs.custom = "value"
attrs.__doc__ = "set later"
print(attrs.custom, attrs.__doc__, "custom" in vars(attrs))
def outer(x):
    def middle(y):
        def inner(z):
            return x + y + z
        return inner
    return middle
print(outer(1)(2)(3), outer("a")("b")("c"))
