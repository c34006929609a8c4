"""Dynamic programming over lists: longest common subsequence, edit distance with a rolling row,
0/1 knapsack, and longest increasing subsequence with patience sorting."""
import bisect


def lcs(a, b):
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        diag, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            diag, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diag + (x != y))
    return row[-1]


def knapsack(items, cap):
    best = [0] * (cap + 1)
    for w, v in items:
        for c in range(cap, w - 1, -1):
            if best[c - w] + v > best[c]:
                best[c] = best[c - w] + v
    return best[cap]


def lis(seq):
    tails = []
    for x in seq:
        i = bisect.bisect_left(tails, x)
        if i == len(tails):
            tails.append(x)
        else:
            tails[i] = x
    return len(tails)


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(3):
    s1 = "".join("ACGT"[(i * i + 3 * i) % 4] for i in range(1200))
    s2 = "".join("ACGT"[(i * 7 + i // 3) % 4] for i in range(1200))
    items = [(1 + i * 7 % 23, 1 + i * 11 % 37) for i in range(120)]
    seq = [(i * 7919) % 10007 for i in range(100000)]
    print(lcs(s1, s2), edit_distance(s1[:700], s2[:700]), knapsack(items, 1500), lis(seq))
