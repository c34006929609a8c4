import collections

od = collections.OrderedDict()
od["b"] = 1
od["a"] = 2
od["c"] = 3
print(od, list(od), list(od.keys()), list(od.values()))
od.move_to_end("b")
print(list(od))
od.move_to_end("c", last=False)
print(list(od), od)
print(od.popitem(), od.popitem(last=False), od)
try:
    od.move_to_end("zz")
except KeyError as e:
    print("KeyError", e)
e = collections.OrderedDict()
try:
    e.popitem()
except KeyError as err:
    print("KeyError", err)
print(repr(e))
x = collections.OrderedDict([("a", 1), ("b", 2)])
y = collections.OrderedDict([("b", 2), ("a", 1)])
print(x == y, x != y, dict(x) == dict(y), x == {"b": 2, "a": 1}, {"b": 2, "a": 1} == x)
print(list(reversed(x)), x.copy() == x, type(x.copy()).__name__)
z = x | {"c": 3}
print(type(z).__name__, z)
x |= {"a": 9}
print(x)
f = collections.OrderedDict.fromkeys("xyz", 0)
print(f, type(f).__name__)
f.update(w=1)
f["x"] = 5
print(f)
del f["y"]
print(list(f.items()))
f.move_to_end("x")
print(f.popitem(last=True), f.pop("z"), f)
print(isinstance(f, dict))
