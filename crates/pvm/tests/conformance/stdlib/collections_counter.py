import collections

c = collections.Counter("abracadabra")
print(c, c["a"], c["zz"], "zz" in c, len(c))
print(c.most_common(2), c.most_common(), c.most_common(0), c.total())
print(sorted(c.elements()), list(collections.Counter(a=2, b=0, c=-1).elements()))
c.update("aaz")
print(c)
c.update({"z": 5})
c.update(k=2)
print(c)
c.subtract("abc")
c.subtract({"k": 5})
print(c)
del c["nothere"]
del c["k"]
print(c)
print(collections.Counter(), collections.Counter({"x": 2}), collections.Counter(x=1, y=3))
print(collections.Counter([1, 1, 2]).most_common(1), collections.Counter(["b", "a", "b", "a"]).most_common())
try:
    collections.Counter.fromkeys("ab")
except NotImplementedError as e:
    print("NotImplementedError", e)
cp = c.copy()
print(type(cp).__name__, cp == c, cp is c)
words = "the cat and the hat and the bat".split()
print(collections.Counter(words).most_common(3))
d = collections.Counter()
d["x"] += 1
print(d, dict(d))
print(collections.Counter({"a": 1.5, "b": 0.5}).total())
print(repr(collections.Counter({"a": 1, "b": "x"})) if False else "skip")
