import functools
import operator

print(functools.reduce(operator.add, [1, 2, 3, 4]))
print(functools.reduce(operator.add, [1, 2, 3, 4], 10))
print(functools.reduce(lambda a, b: a * b, range(1, 8)))
print(functools.reduce(lambda a, b: a + [b], "abc", []))
print(functools.reduce(max, [3, 9, 2]))
print(functools.reduce(operator.add, [], 0))
print(functools.reduce(operator.add, [5]))
print(functools.reduce(lambda a, b: (a, b), iter([1, 2, 3])))
for args in [(operator.add, []), (operator.add, 3), (operator.add, None, 1)]:
    try:
        functools.reduce(*args)
    except TypeError as e:
        print("TypeError", e)
def boom(a, b):
    raise ValueError("boom %d %d" % (a, b))
try:
    functools.reduce(boom, [1, 2, 3])
except ValueError as e:
    print(e)
print(functools.reduce(operator.add, ["x"], "y"))
functools.reduce(operator.add, [])
