import itertools
import operator

print(list(itertools.accumulate([1, 2, 3, 4])))
print(list(itertools.accumulate([1, 2, 3, 4], operator.mul)))
print(list(itertools.accumulate([3, 1, 4, 1, 5], max)))
print(list(itertools.accumulate([1, 2], initial=100)))
print(list(itertools.accumulate([], initial=5)), list(itertools.accumulate([])))
print(list(itertools.accumulate("abc")))
print(list(itertools.accumulate([1, 2, 3], lambda a, b: a - b, initial=0)))
print(list(itertools.chain("ab", [1, 2], (), range(2))))
print(list(itertools.chain()), list(itertools.chain.from_iterable(["ab", "cd"])))
print(list(itertools.chain.from_iterable(x for x in [[1], [2, 3]])))
ch = itertools.chain([1], 5)
print(next(ch))
try:
    next(ch)
except TypeError as e:
    print("TypeError", e)
print(type(itertools.chain.from_iterable([])).__name__)
try:
    itertools.accumulate(3)
except TypeError as e:
    print("TypeError", e)
print(list(itertools.compress("ABCDEF", [1, 0, 1, 0, 1, 1])))
print(list(itertools.compress("AB", [1, 1, 1, 1])), list(itertools.compress("ABCD", [0, 1])))
print(list(itertools.starmap(pow, [(2, 5), (3, 2), (10, 3)])))
print(list(itertools.starmap(lambda *a: sum(a), [(), (1,), (1, 2, 3)])))
print(list(itertools.pairwise("abcd")), list(itertools.pairwise("a")), list(itertools.pairwise([])))
try:
    itertools.pairwise(1)
except TypeError as e:
    print("TypeError", e)
