# sum, min, max, set() and frozenset() consume an iterable one item at a time, as CPython does:
# a generator of 700,000 items would need more than the 10 MiB invocation memory if it were
# first materialised as a list.
N = 700_000
print(sum(x for x in range(N)))
print(sum((x * 0.5 for x in range(N)), 0.25))
print(max(x % 1000 for x in range(N)), min(-x for x in range(N)))
print(max((x for x in range(N)), key=lambda x: x % 977), min(iter(range(N)), default=-1))
print(sorted(set(x % 7 for x in range(N))), len(frozenset(x % 11 for x in range(N))))
print(set(range(5)) | set(x % 3 for x in range(N)))
print(max(3, 9, 4), min("b", "a", "c"), max([], default="empty"))
try:
    max()
except TypeError as e:
    print(e)
try:
    max(1)
except TypeError as e:
    print(e)
try:
    max([])
except ValueError as e:
    print(e)
try:
    max(1, 2, default=0)
except TypeError as e:
    print(e)
