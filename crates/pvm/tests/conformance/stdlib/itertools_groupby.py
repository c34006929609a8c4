import itertools

print([(k, list(g)) for k, g in itertools.groupby("AAAABBBCCDAABBB")])
print([k for k, g in itertools.groupby("AAAABBBCCD")])
data = [("a", 1), ("a", 2), ("b", 3), ("a", 4)]
print([(k, [v for _, v in g]) for k, g in itertools.groupby(data, key=lambda p: p[0])])
print(list(itertools.groupby([])))
groups = list(itertools.groupby("aabbc"))
print([(k, list(g)) for k, g in groups])
gb = itertools.groupby([1, 1, 2, 2, 2, 3])
k1, g1 = next(gb)
print(k1, next(g1))
k2, g2 = next(gb)
print(k2, list(g1), list(g2))
k3, g3 = next(gb)
print(k3, list(g3))
try:
    next(gb)
except StopIteration:
    print("done")
print([(k, len(list(g))) for k, g in itertools.groupby(range(10), key=lambda x: x // 3)])
print([(k, list(g)) for k, g in itertools.groupby([None, None, 0, 0.0, False, 1, True])])
gb = itertools.groupby("aab")
k, g = next(gb)
print(list(g), list(g))
print([k for k, _ in itertools.groupby(sorted("mississippi"))])
try:
    itertools.groupby(1)
except TypeError as e:
    print("TypeError", e)
def badkey(x):
    if x == 3:
        raise ValueError("bad key")
    return x
try:
    print([(k, list(g)) for k, g in itertools.groupby([1, 2, 3], key=badkey)])
except ValueError as e:
    print("ValueError", e)
