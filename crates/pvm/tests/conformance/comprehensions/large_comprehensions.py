"""Comprehensions over larger inputs: primes, counting, transposition and grouping, checked with aggregates."""
N = 2000
sieve = [True] * (N + 1)
sieve[0] = sieve[1] = False
for i in range(2, int(N ** 0.5) + 1):
    if sieve[i]:
        sieve[i * i::i] = [False] * len(sieve[i * i::i])
primes = [i for i, p in enumerate(sieve) if p]
print(len(primes), primes[:10], primes[-3:], sum(primes))
twin = [(p, p + 2) for p in primes if p + 2 <= N and sieve[p + 2]]
print(len(twin), twin[-1])
digits = {d: sum(1 for p in primes if str(p)[-1] == d) for d in "0123456789"}
print(digits)
table = [[(r * c) % 7 for c in range(50)] for r in range(40)]
transposed = [[row[c] for row in table] for c in range(50)]
print(len(transposed), len(transposed[0]), sum(map(sum, table)) == sum(map(sum, transposed)))
words = [f"w{i % 17}x{i % 5}" for i in range(500)]
groups = {}
for w in words:
    groups.setdefault(w[-1], set()).add(w)
print({k: len(v) for k, v in sorted(groups.items())}, len({w for w in words}))
print(sum(x * y for x, y in zip(range(1000), range(1000, 0, -1))), max((x % 97, x) for x in range(10000)))
