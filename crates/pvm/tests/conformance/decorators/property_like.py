"""Decorators built from descriptors: cached_property-like, a validating setter decorator, functools helpers."""
import functools
class cached:
    def __init__(self, f):
        self.f = f
        self.name = f.__name__
    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        value = self.f(obj)
        obj.__dict__[self.name] = value
        return value
class Data:
    computed = 0
    @cached
    def expensive(self):
        Data.computed += 1
        return sum(range(1000))
d = Data()
print(d.expensive, d.expensive, Data.computed, "expensive" in d.__dict__)
@functools.lru_cache(maxsize=None)
def slow_square(n):
    return n * n
print([slow_square(i % 3) for i in range(6)], slow_square.cache_info().hits if hasattr(slow_square, "cache_info") else "n/a")
@functools.total_ordering
class Version:
    def __init__(self, *parts):
        self.parts = parts
    def __eq__(self, other):
        return self.parts == other.parts
    def __lt__(self, other):
        return self.parts < other.parts
print(Version(1, 2) <= Version(1, 3), Version(2) > Version(1, 9), Version(1) >= Version(1), sorted([Version(3), Version(1)])[0].parts)
def partial_demo(a, b, c=0):
    return (a, b, c)
p = functools.partial(partial_demo, 1, c=3)
print(p(2), p.args, p.keywords, p.func is partial_demo)
print(functools.reduce(lambda x, y: x * y, range(1, 6)), functools.reduce(lambda x, y: x + y, [], "init"))
