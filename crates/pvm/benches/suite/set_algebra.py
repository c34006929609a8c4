"""Set work: a prime sieve by set difference, set algebra over word shingles (Jaccard
similarity), frozensets as dict keys, and membership tests in loops."""


def sieve(n):
    candidates = set(range(2, n))
    p = 2
    while p * p < n:
        if p in candidates:
            candidates -= set(range(p * p, n, p))
        p += 1
    return candidates


def shingles(text, k):
    return {text[i:i + k] for i in range(len(text) - k + 1)}


def jaccard(a, b):
    return len(a & b) * 1000 // max(1, len(a | b))


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(2):
    docs = ["".join(chr(97 + (i * j + j * j) % 26) for j in range(400)) for i in range(250)]
    sh = [shingles(d, 3) for d in docs]
    sim = 0
    for i in range(len(sh)):
        for j in range(i + 1, len(sh)):
            sim += jaccard(sh[i], sh[j])
    primes = sieve(1000000)
    groups = {}
    for i in range(60000):
        key = frozenset((i % 7, i % 11, i % 13))
        groups[key] = groups.get(key, 0) + 1
    member = sum(1 for i in range(600000) if i in primes)
    print(sim, len(primes), len(groups), member, sorted(primes)[-3:])
