d = {}
for word in "the quick the lazy the end quick".split():
    d[word] = d.get(word, 0) + 1
print(d, max(d, key=d.get), sorted(d.items(), key=lambda kv: (-kv[1], kv[0])))
inv = {}
for k, v in d.items(): inv.setdefault(v, []).append(k)
print(inv)
a = {"x": 1, "y": 2}; b = {"y": 3, "z": 4}
print(a | b, {**b, **a}, a.keys() & b.keys(), a.keys() - b.keys(), list(a.items() ^ b.items()) != [])
a |= {"w": 0}; print(a, list(reversed(a)), dict(sorted(a.items())))
nested = {"a": {"b": {"c": 1}}}
nested["a"]["b"]["d"] = 2; print(nested, nested["a"]["b"].get("c"))
try: {}["missing"]
except KeyError as e: print("KeyError", e, repr(e))
print({(1, 2): "tuple key", frozenset([1]): "fs", 1.5: "float"}[(1, 2)], len({True: 1, 1: 2}))
