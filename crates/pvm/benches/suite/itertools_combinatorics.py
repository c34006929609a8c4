"""Combinatorics with itertools: permutations of a travelling-salesman tour, combinations for
subset sums, product for grid walks, and groupby/accumulate/chain over the results."""
import itertools


def tour_length(order, dist):
    total = 0
    prev = order[-1]
    for c in order:
        total += dist[prev][c]
        prev = c
    return total


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(2):
    n = 10
    dist = [[(i * 17 + j * 31 + i * j) % 50 + 1 if i != j else 0 for j in range(n)] for i in range(n)]
    best = min(tour_length((0,) + p, dist) for p in itertools.permutations(range(1, n)))
    nums = [i * 37 % 101 for i in range(28)]
    subset_hits = sum(1 for c in itertools.combinations(nums, 5) if sum(c) % 97 == 0)
    walks = sum(1 for step in itertools.product((-1, 0, 1), repeat=13) if sum(step) == 0)
    runs = [(k, len(list(g))) for k, g in itertools.groupby(sorted(x % 13 for x in range(50000)))]
    acc = list(itertools.accumulate(itertools.chain(range(1000), range(1000, 0, -1))))
    print(best, subset_hits, walks, runs[:3], acc[-1])
