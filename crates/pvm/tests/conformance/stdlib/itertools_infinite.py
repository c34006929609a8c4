import itertools

c = itertools.count()
print([next(c) for _ in range(3)], repr(c))
print(list(itertools.islice(itertools.count(5, 3), 4)))
print(list(itertools.islice(itertools.count(1.5, 0.5), 3)))
print(list(itertools.islice(itertools.count(10, -2), 4)))
print(repr(itertools.count(3, 2)), repr(itertools.count(1.5)), repr(itertools.count(3, 1.0)))
print(type(c).__name__, isinstance(c, itertools.count), iter(c) is c)
try:
    itertools.count("a")
except TypeError as e:
    print("TypeError", e)
cy = itertools.cycle("abc")
print([next(cy) for _ in range(7)])
print(list(itertools.cycle([])))
r = itertools.repeat("x", 3)
print(repr(r), list(r), repr(r))
print(list(itertools.repeat(1, 0)), list(itertools.repeat(1, -4)))
print(list(itertools.islice(itertools.repeat(None), 3)), repr(itertools.repeat([1])))
print(list(map(pow, range(5), itertools.repeat(2))))
print(itertools.repeat(7, 4).__length_hint__())
print(list(zip(itertools.count(1), "ab")))
try:
    itertools.cycle(5)
except TypeError as e:
    print("TypeError", e)
def gen():
    yield 1
    yield 2
g = itertools.cycle(gen())
print([next(g) for _ in range(5)])
