"""Generator expressions: laziness, single use, early binding of the first iterable, in calls and with conditions."""
log = []
def src():
    for i in range(3):
        log.append(f"produce {i}")
        yield i
g = (x * 10 for x in src())
print(log, type(g).__name__)
print(next(g), log)
print(list(g), list(g), log)
items = [1, 2, 3]
g2 = (x for x in items)
items = [9, 9]
print(list(g2))
def first_iter_now():
    try:
        (x for x in 5)
    except TypeError as e:
        return type(e).__name__ + ": " + str(e)
print(first_iter_now())
print(sum(x * x for x in range(10) if x % 2), max(len(w) for w in "a bb ccc".split()), any(c.isdigit() for c in "ab1"))
print(sorted((y for y in "hello" if y != "l"), reverse=True), dict((k, k * 2) for k in "ab"), tuple(x for x in ()))
pairs = ((a, b) for a in range(3) for b in range(a))
print(list(pairs))
gen = (i for i in range(3))
print(iter(gen) is gen, next(gen), gen.__next__() if hasattr(gen, "__next__") else None, list(gen))
nested = ((x, (y for y in range(x))) for x in range(3))
print([(x, list(ys)) for x, ys in nested])
