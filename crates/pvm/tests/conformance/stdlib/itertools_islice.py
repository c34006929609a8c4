import itertools

r = range(20)
print(list(itertools.islice(r, 5)))
print(list(itertools.islice(r, 2, 8)))
print(list(itertools.islice(r, 2, 14, 3)))
print(list(itertools.islice(r, None)), list(itertools.islice("abc", None, None, 2)))
print(list(itertools.islice(r, 5, None, 7)))
print(list(itertools.islice(r, 0)), list(itertools.islice(r, 30, 40)))
it = iter(range(10))
print(list(itertools.islice(it, 0, 5, 3)), next(it))
it = iter(range(10))
print(list(itertools.islice(it, 3)), next(it))
it = iter(range(10))
print(list(itertools.islice(it, 4, 4)), next(it))
for args in [(-1,), ("a",), (1, 2, 0), (1, -2), (None, 2, -1), (-3, None), (1.0,)]:
    try:
        itertools.islice([1, 2], *args)
    except ValueError as e:
        print("ValueError", e)
try:
    itertools.islice([1])
except TypeError as e:
    print("TypeError", e)
s = itertools.islice(itertools.count(), 2, None)
print(next(s), next(s), next(s))
print(list(itertools.islice(itertools.cycle("ab"), 1, 6)))
def noisy():
    for i in range(5):
        print("gen", i)
        yield i
print(list(itertools.islice(noisy(), 1, 3)))
