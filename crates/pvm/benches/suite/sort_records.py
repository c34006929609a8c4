"""Sorting: records sorted by key functions and lambdas, tuples compared lexicographically,
stable multi-pass sorts, bisect insertion, and heapq merges of sorted runs."""
import bisect
import heapq


def lcg(n, seed=7):
    out = []
    for _ in range(n):
        seed = (seed * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        out.append(seed >> 33)
    return out


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(2):
    vals = lcg(80000)
    records = [(v % 1000, f"name{v % 5000}", v) for v in vals]
    by_tuple = sorted(records)
    by_name = sorted(records, key=lambda r: (r[1], -r[0]))
    by_last = sorted(records, key=lambda r: r[2] % 977, reverse=True)
    stable = sorted(sorted(records, key=lambda r: r[1]), key=lambda r: r[0] // 100)
    runs = [sorted(vals[i::8]) for i in range(8)]
    merged = list(heapq.merge(*runs))
    window = []
    for v in vals[:20000]:
        bisect.insort(window, v % 100000)
    top = heapq.nlargest(10, vals)
    print(by_tuple[0], by_name[-1], by_last[0][2] % 977, stable[100], merged[-1] == max(vals), window[5000], top[-1])
