l = [5, 3, 8]
l.append(1); l.extend([9, 0]); l.insert(1, 7); print(l, l.pop(), l.pop(0), l.index(8), l.count(3))
l.sort(); print(l); l.reverse(); print(l); l.remove(7); print(l, l.copy() == l, l.copy() is l)
l2 = [[0] * 2] * 2; l2[0][0] = 1; print(l2)
d = {"b": 2, "a": 1}
d["c"] = 3; d.update({"a": 10}, z=26); print(d, list(d), list(d.values()), list(d.items())[0])
print(d.get("q"), d.get("q", 0), d.setdefault("n", []), d.pop("b"), d.pop("zz", None), "a" in d, len(d))
print(d.popitem(), dict.fromkeys("xy", 0), dict(zip("ab", [1, 2])), dict([("k", "v")], w=1))
keys = d.keys(); d["new"] = 1; print(keys, keys & {"a", "new"} == {"a", "new"})
print({1: "a", True: "b", 1.0: "c"}, {} == dict(), [1, 2] * 2, [1, [2, 3]] == [1, [2, 3]])
t = (1, 2, 2, 3); print(t.count(2), t.index(3), t + (4,), t * 2, (1,) < (1, 0), tuple("ab"))
