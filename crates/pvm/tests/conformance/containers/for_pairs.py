# `for a, b in ...` over zip, enumerate and dict items: the interpreter unpacks the pair
# without building it when it can; every answer and error must stay CPython's.

xs = [1, 2, 3, 4]
ys = ("a", "b", "c")
print([(x, y) for x, y in zip(xs, ys)])
print([(i, x) for i, x in enumerate(ys)])
print([(i, x) for i, x in enumerate(ys, 10)])
print([(k, v) for k, v in {"p": 1, "q": 2}.items()])
print([(x, y) for x, y in zip(range(3), range(10, 20))])
print([(i, c) for i, c in enumerate("héllo")], [(a, b) for a, b in zip(b"ab", bytearray(b"xyz"))])
print([(a, b) for a, b in zip("ab", "€ü")])

# The same iterator twice: pairs of consecutive items.
it = iter([1, 2, 3, 4, 5])
print([(a, b) for a, b in zip(it, it)])
print(list(it))

# zip(strict=True) that runs out early raises at the end, after the pairs it made.
out = []
try:
    for a, b in zip([1, 2, 3], [4, 5], strict=True):
        out.append(a + b)
except ValueError as e:
    print(out, e)
try:
    for a, b in zip([1, 2], [4, 5, 6], strict=True):
        out.append(a * b)
except ValueError as e:
    print(out, e)

# A zip over three, and over an iterator of another kind, still unpacks.
for a, b, c in zip(xs, xs, xs):
    print(a + b + c, end=" ")
print()
for a, b in zip(map(str, xs), (x * x for x in xs)):
    print(a, b, end=" ")
print()

# Enumerate past the largest small int.
for i, x in enumerate("ab", 2**63 - 2):
    print(i, x)
for i, x in enumerate("ab", 2**70):
    print(i, x)

# Unpacking into the wrong number of names.
try:
    for a, b, c in zip(xs, ys):
        pass
except ValueError as e:
    print(e)
try:
    for (a,) in enumerate(xs):
        pass
except ValueError as e:
    print(e)

# A list that grows or shrinks under a zip or an enumerate.
grow = [1, 2]
for i, x in enumerate(grow):
    if i < 3:
        grow.append(x * 10)
print(grow)
shrink = [1, 2, 3, 4, 5]
for a, b in zip(shrink, range(100)):
    if shrink:
        shrink.pop()
    print(a, b, end=" ")
print()

# A dict that changes size while its items are walked.
d = {1: "a", 2: "b"}
try:
    for k, v in d.items():
        d[k + 10] = v
except RuntimeError as e:
    print(e)
# Deleted entries (tombstones) are skipped.
d = {i: i * i for i in range(10)}
for i in range(0, 10, 3):
    del d[i]
print([(k, v) for k, v in d.items()])

# Nested pair loops, in a generator and in a function.
def pairs(m):
    for k, v in m.items():
        for i, c in enumerate(v):
            yield k, i, c
print(list(pairs({"x": "ab", "y": "c"})))
print(sum(x * y for x, y in zip(range(100), range(100, 200))))

# Lists and tuples of pairs: items that are 2-tuples or 2-lists are unpacked where they lie.
pairs = [(1, "a"), [2, "b"], (3, "c")]
print([(k, v) for k, v in pairs], [k for k, _ in tuple(pairs)])
# An item of another length, or not a sequence the unpack takes directly, in the middle.
for bad in ([(1, 2), (3, 4, 5)], [(1, 2), (6,)], [(1, 2), 7], [(1, 2), "xy", range(2)]):
    got = []
    try:
        for a, b in bad:
            got.append((a, b))
    except (ValueError, TypeError) as e:
        print(got, type(e).__name__, e)
    else:
        print(got)
# A tuple subclass and a dict item take the general path.
class P(tuple):
    pass
print([(a, b) for a, b in [P((1, 2)), {3: 0, 4: 0}, (5, 6)]])
# The list grows, shrinks and changes under the loop.
grow = [(0, 0)]
for a, b in grow:
    if a < 5:
        grow.append((a + 1, b - 1))
print(grow)
shrink = [(i, i) for i in range(6)]
seen = []
for a, b in shrink:
    seen.append(a)
    if shrink:
        shrink.pop()
print(seen, shrink)
swap = [(1, 2), (3, 4), (5, 6)]
for a, b in swap:
    swap[-1] = [b, a]
print(swap)
# A pair list holding itself, and the same iterator consumed inside the loop.
me = [1, 2]
me[1] = me
for a, b in [me]:
    print(a, b is me)
it = iter([(1, 2), (3, 4), (5, 6), (7, 8)])
for a, b in it:
    print(a, b, next(it, None))
# Exhausted iterators stay exhausted after the list grows.
lst = [(1, 2)]
it = iter(lst)
for a, b in it:
    pass
lst.append((3, 4))
print(list(it))
