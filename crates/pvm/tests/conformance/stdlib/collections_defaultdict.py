import collections

d = collections.defaultdict(list)
d["a"].append(1)
d["a"].append(2)
d["b"]
print(d, d["a"], len(d), "c" in d, d.get("c"), "c" in d)
c = collections.defaultdict(int)
for ch in "mississippi":
    c[ch] += 1
print(sorted(c.items()), c.default_factory)
n = collections.defaultdict()
print(n, n.default_factory)
try:
    n["x"]
except KeyError as e:
    print("KeyError", e)
try:
    collections.defaultdict(1)
except TypeError as e:
    print("TypeError", e)
dd = collections.defaultdict(lambda: "dflt", {"k": 1}, z=2)
print(dd["k"], dd["new"], sorted(dd.items()))
cp = d.copy()
cp["a"].append(3)
cp["zz"]
print(type(cp).__name__, cp.default_factory is list, d["a"], "zz" in d)
print(isinstance(d, dict), dict(d) == {"a": [1, 2, 3], "b": []})
m = collections.defaultdict(set, {"x": {1}}) | {"y": {2}}
print(type(m).__name__, m.default_factory, sorted(m))
r = {"q": 1} | collections.defaultdict(int, {"r": 2})
print(type(r).__name__, r)
tree = lambda: collections.defaultdict(tree)
t = tree()
t["a"]["b"]["c"] = 1
print(t["a"]["b"]["c"], list(t["a"]))
print(repr(collections.defaultdict(int)), repr(collections.defaultdict(list, {1: [2]})))
d.default_factory = None
try:
    d["nope"]
except KeyError as e:
    print("KeyError", e)
print(d.pop("b"), d.setdefault("s", 5), d["s"])
