# Set algebra in place and by operator, subset tests, copies, and iterators over sequences
# that change: the paths the metering audit rewrote (issue 15) must keep CPython's results.

a = {3, 1, 2}
b = {2, 5}
a |= b
print(sorted(a))
a -= {1, 99}
print(sorted(a))
a &= {2, 3, 7}
print(sorted(a))
a ^= {3, 4}
print(sorted(a))
s = {1, 2, 3}
s -= s
print(s)
s = {1, 2}
s |= s
print(sorted(s))
s.update([4, 5], {6})
s.difference_update({1}, [2])
print(sorted(s))
s.intersection_update({4, 5, 6, 7})
s.symmetric_difference_update({6, 8})
print(sorted(s))

f = frozenset({1, 2})
g = f
g |= {3}
print(sorted(f), sorted(g), type(g).__name__)
print(sorted(frozenset({1, 2}) | {5}), type(frozenset({1}) | {2}).__name__)
print(sorted({1, 2}.union()), sorted({1, 2}.union({3}, [4])))
print(sorted({1, 2, 3}.intersection({2, 3}, {3})), sorted({1, 2}.difference()))
print(sorted({1, 2}.symmetric_difference({2, 3})))

print({1, 2} <= {1, 2, 3}, {1, 2, 4} <= {1, 2, 3}, {1, 2, 3, 4} <= {1, 2})
print({1, 2}.issubset([1, 2, 3]), {1, 2, 3}.issuperset((1, 2)), {1}.isdisjoint({2}))
print(set() <= set(), {1} < {1, 2}, {1, 2} < {1, 2}, {1, 2} >= {2})
big = set(range(1000))
for i in range(0, 1000, 2):
    big.discard(i)
print(big <= set(range(1, 1000, 2)), big <= set(range(1, 999, 2)))

class Eq:
    calls = 0
    def __init__(self, v):
        self.v = v
    def __hash__(self):
        return 0
    def __eq__(self, other):
        Eq.calls += 1
        return isinstance(other, Eq) and self.v == other.v

x = {Eq(1), Eq(2), Eq(3)}
y = {Eq(3), Eq(4)}
print(len(x | y), len(x & y), len(x - y), len(x ^ y))
x -= y
print(sorted(e.v for e in x))

m = {1, 2}
print(m in [frozenset({1, 2})], {frozenset({1, 2}): 1}[frozenset(m)])
print(hash(frozenset()) == hash(frozenset()), hash(frozenset({1, 2})) == hash(frozenset({2, 1})))

d = {1: "a", 2: "b"}
e = d | {}
e[3] = "c"
print(d, e, d | {1: "z"}, {} | d)
c = d.copy()
c[1] = "q"
print(d, c)

l = [1, 2, 3, 4]
print(l * 0, l * 1, (1, 2) * 0, (1, 2) * 2, l + [5], (1,) + (2,))
it = reversed(l)
print(next(it))
del l[:]
print(list(it))
l = [1, 2, 3, 4]
it = reversed(l)
next(it)
l.append(9)
print(list(it))
it = reversed((1, 2, 3))
print(list(it), list(it))
print(list(reversed(range(3))), list(reversed("abc")))

print("xxhixyx".strip("xy"), "aXbXc".lstrip("Xab"), "hello!!".rstrip("!o"))
print(b"xxhixyx".strip(b"xy"), bytearray(b"  hi ").strip(), b"abc".rstrip(bytearray(b"c")))
print("abcabc".replace("bc", "X"), "abc".replace("abcd", "X"), "abc".partition("abcd"))
print("a,b".partition(","), "a,b,c".rpartition(","), b"a,b".partition(b","))
print(b"a".removeprefix(b"ab"), b"abc".removeprefix(bytearray(b"a")), b"ab".center(6, b"*"))
try:
    "x" % (1, 2)
except TypeError as e:
    print(e)
print("%s-%s" % (1, 2))
ba = bytearray(b"abcdef")
del ba[0]
del ba[-1]
print(ba)
