import itertools

a, b = itertools.tee([1, 2, 3])
print(list(a), list(b))
a, b, c = itertools.tee(iter("xyz"), 3)
print(next(a), next(a), next(b), list(c), list(a), list(b))
print(itertools.tee([1], 0))
try:
    itertools.tee([1], -1)
except ValueError as e:
    print("ValueError", e)
src = iter(range(5))
t1, t2 = itertools.tee(src)
print(next(t1), next(t1), next(src), list(t2), list(t1))
x, y = itertools.tee(itertools.count())
print([next(x) for _ in range(3)], [next(y) for _ in range(2)])
p, q = itertools.tee(x)
print(next(p), next(q), next(x))
print(list(itertools.zip_longest("ABCD", "xy", fillvalue="-")))
print(list(itertools.zip_longest([1, 2], [3], [4, 5, 6])))
print(list(itertools.zip_longest()), list(itertools.zip_longest([], [])))
print(list(itertools.zip_longest("ab")))
try:
    itertools.zip_longest([1], 2)
except TypeError as e:
    print("TypeError", e)
print(type(itertools.zip_longest()).__name__)
it = itertools.zip_longest("a", "bcd", fillvalue=0)
print(next(it), next(it), next(it))
try:
    next(it)
except StopIteration:
    print("stop")
