import itertools

print(list(itertools.dropwhile(lambda x: x < 5, [1, 4, 6, 4, 1])))
print(list(itertools.takewhile(lambda x: x < 5, [1, 4, 6, 4, 1])))
print(list(itertools.filterfalse(lambda x: x % 2, range(10))))
print(list(itertools.filterfalse(None, [0, 1, "", "a", None, [], [0]])))
it = iter([1, 2, 10, 3, 4])
print(list(itertools.takewhile(lambda x: x < 5, it)), list(it))
it = iter([1, 2, 10, 3])
print(list(itertools.dropwhile(lambda x: x < 5, it)), list(it))
print(list(itertools.dropwhile(bool, [1, 1])), list(itertools.takewhile(bool, [])))
calls = []
def pred(x):
    calls.append(x)
    return x < 3
list(itertools.dropwhile(pred, [1, 2, 3, 1, 0]))
print(calls)
try:
    itertools.takewhile(bool, 3)
except TypeError as e:
    print("TypeError", e)
try:
    itertools.filterfalse(bool, None)
except TypeError as e:
    print("TypeError", e)
def bad(x):
    raise KeyError(x)
try:
    list(itertools.filterfalse(bad, [7]))
except KeyError as e:
    print("KeyError", e)
print(type(itertools.dropwhile(bool, [])).__name__, type(itertools.filterfalse(bool, [])).__name__)
print(list(filter(None, itertools.filterfalse(lambda x: x > 2, [3, 0, 1, 2]))))
