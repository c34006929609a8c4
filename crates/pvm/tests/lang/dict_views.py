d = {"a": 1, "b": 2}
k, v, it = d.keys(), d.values(), d.items()
print(k, v, it, len(k), "a" in k, 2 in v, ("a", 1) in it, list(k), sorted(v), list(it))
d["c"] = 3
print(k, list(v), k & {"a", "c"} == {"a", "c"}, k - {"a"} == {"b", "c"}, k == {"a", "b", "c"}, reversed(list(k)) is not None)
for key in d.keys(): print(key, end=" ")
print()
print(dict(d.items()), max(d.values()), sum(d.values()), [x for x in d.items() if x[1] > 1])
