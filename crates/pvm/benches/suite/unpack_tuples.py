"""Tuple packing and unpacking in tight loops: swaps, multiple assignment, iteration over pairs
and triples, starred unpacking, returning tuples from functions."""


def fib_pairs(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, (a + b) % 1000003
    return a


def divmods(n):
    acc = 0
    for i in range(1, n):
        q, r = divmod(i * 7919, 97)
        acc += q ^ r
    return acc


def rotate(n):
    x, y, z = 1, 2, 3
    for _ in range(n):
        x, y, z = y, z, x + 1
    return x, y, z


def pairs(points):
    sx = sy = 0
    for x, y in points:
        sx += x
        sy += y
    return sx, sy


def triples(rows):
    total = 0
    for a, (b, c) in rows:
        total += a * b - c
    return total


def starred(rows):
    total = 0
    for first, *middle, last in rows:
        total += first + last + len(middle)
    return total


def minmax(seq):
    lo, hi = seq[0], seq[0]
    for v in seq:
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    return lo, hi


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(3):
    pts = [(i, i * 3 % 11) for i in range(1000)]
    rows = [(i, (i % 13, i % 7)) for i in range(1000)]
    wide = [tuple(range(i % 6 + 2)) for i in range(1000)]
    out = 0
    for _ in range(550):
        sx, sy = pairs(pts)
        lo, hi = minmax(pts)
        out += sx - sy + triples(rows) + starred(wide) + lo[0] + hi[1]
    print(out, fib_pairs(1000000), divmods(500000), rotate(1000000))
