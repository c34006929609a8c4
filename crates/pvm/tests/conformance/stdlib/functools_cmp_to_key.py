import functools

def cmp(a, b):
    return (a > b) - (a < b)
def rev(a, b):
    return cmp(b, a)
print(sorted([3, 1, 2], key=functools.cmp_to_key(cmp)))
print(sorted([3, 1, 2], key=functools.cmp_to_key(rev)))
print(sorted(["bb", "a", "ccc"], key=functools.cmp_to_key(lambda x, y: len(x) - len(y))))
K = functools.cmp_to_key(cmp)
a, b = K(1), K(2)
print(a < b, a > b, a <= b, a >= b, a == b, a != b, K(3) == K(3))
print(a.obj, b.obj)
try:
    hash(a)
except TypeError:
    print("TypeError")
print(min([5, 2, 8], key=functools.cmp_to_key(cmp)), max([5, 2, 8], key=functools.cmp_to_key(cmp)))
def bycase(x, y):
    return cmp(x.lower(), y.lower())
print(sorted(["b", "A", "c", "B"], key=functools.cmp_to_key(bycase)))
calls = []
def counting(x, y):
    calls.append((x, y))
    return cmp(x, y)
sorted([2, 1], key=functools.cmp_to_key(counting))
print(len(calls) > 0)
print(sorted([(1, "b"), (1, "a"), (0, "z")], key=functools.cmp_to_key(lambda p, q: p[0] - q[0])))
print(callable(K), K(1).obj)
