"""dict ordering: insertion order, re-insertion after delete, equality ignoring order, repr and nesting."""
d = {}
for k in ["z", "a", "m"]:
    d[k] = len(d)
print(d, list(d))
d["a"] = 99
print(d)
del d["z"]; d["z"] = -1
print(d, list(d.items())[0])
print({"a": 1, "b": 2} == {"b": 2, "a": 1}, {1: 1} == {1.0: 1}, {1: "x"} == {True: "x"}, {} == dict())
print({1: {2: {3: [4]}}}, {(1, 2): frozenset([3])}, {None: None, ...: Ellipsis})
r = {}
r["self"] = r
print(r)
print(len({i: i for i in range(100)}), {i % 3: i for i in range(10)})
# keys that are equal collapse, first key object is kept, last value wins
print({1: "int", 1.0: "float", True: "bool"})
print(list({"b": 1, "a": 2}.values()), sorted({"b": 1, "a": 2}), max({"b": 1, "a": 2}))
try:
    {"a": 1} < {"b": 2}
except TypeError as e:
    print(type(e).__name__, e)
print(dict(sorted({"c": 3, "a": 1, "b": 2}.items())), next(iter({"first": 1, "second": 2})))
print(list(reversed({"x": 1, "y": 2, "z": 3})))
