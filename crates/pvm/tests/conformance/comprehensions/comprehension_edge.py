"""Comprehensions: nested, conditional chains, scoping of the first iterable, walrus leaking,
generator expressions consumed lazily, dict/set comprehension ordering, exceptions inside."""
matrix = [[1, 2, 3], [4, 5, 6]]
print([[row[i] for row in matrix] for i in range(3)])
print([x for row in matrix for x in row if x % 2 if x > 1])
print({x: [y for y in range(x)] for x in range(4)}, sorted({c for c in "mississippi"}))
print([(i, j) for i in range(3) for j in range(i)])
x = 10
print([x for x in range(3)], x)


class C:
    n = 3
    vals = [i * 2 for i in range(n)]


print(C.vals)
g = (i * i for i in range(5))
print(next(g), next(g), list(g), list(g))
log = []


def src():
    for i in range(3):
        log.append(f"produce {i}")
        yield i


gen = (log.append(f"consume {v}") or v for v in src())
print(log)
print(list(gen), log)
print([y := v * 2 for v in range(3)], y)
print(sum(v for v in range(101)), max((len(w), w) for w in "the quick brown fox".split()))
try:
    [1 / v for v in [1, 0]]
except ZeroDivisionError as e:
    print("ZeroDivisionError", e)
print({k: v for k, v in zip("abc", range(3)) if v}, dict((k, len(k)) for k in ["aa", "b"]))
print([[j for j in range(i)] for i in range(4) if i % 2])
print(list(map(lambda f: f(), [lambda i=i: i * 10 for i in range(3)])))
print(sorted({(a, b) for a in range(3) for b in range(3) if a != b})[:4])
