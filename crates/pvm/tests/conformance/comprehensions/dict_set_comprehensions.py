"""Dict and set comprehensions: duplicate keys (last wins), unhashable keys, ordering, inversion, filtering."""
d = {k % 3: k for k in range(10)}
print(d, list(d))
print({c: i for i, c in enumerate("abcab")}, {v: k for k, v in {"a": 1, "b": 2}.items()})
s = {x % 4 for x in range(20)}
print(sorted(s), len(s), 3 in s, type(s).__name__)
print({(x, x * x) for x in range(3)} == {(0, 0), (1, 1), (2, 4)}, sorted({w.lower() for w in ["A", "a", "B"]}))
try:
    {[k]: 1 for k in range(2)}
except TypeError as e:
    print(type(e).__name__, e)
try:
    {{k} for k in range(2)}
except TypeError as e:
    print(type(e).__name__, e)
prices = {"apple": 1.2, "pear": 0.8, "kiwi": 2.5}
print({k: round(v * 1.1, 2) for k, v in prices.items() if v > 1}, {k for k, v in prices.items() if v < 1})
print(dict(sorted({k: len(k) for k in prices}.items(), key=lambda kv: kv[1])))
grid = {(r, c): r * 3 + c for r in range(2) for c in range(3)}
print(grid[(1, 2)], max(grid, key=grid.get), sum(grid.values()))
print({i: {j: i * j for j in range(2)} for i in range(2)})
