# Dict-heavy: counting, membership, get/set with string and int keys.
words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
counts = {}
pairs = {}
for i in range(300000):
    w = words[(i * 7 + i // 3) % 8]
    counts[w] = counts.get(w, 0) + 1
    k = i % 1000
    if k in pairs:
        pairs[k] += 1
    else:
        pairs[k] = 1
print(sorted(counts.items()))
print(len(pairs), pairs[7], sum(pairs.values()))
