import collections

base = {"a": 1, "b": 2}
over = {"b": 20, "c": 30}
cm = collections.ChainMap(over, base)
print(cm["a"], cm["b"], cm["c"], len(cm), list(cm), sorted(cm.items()))
print(cm, cm.get("zz"), cm.get("a"), "c" in cm, "zz" in cm, bool(cm))
cm["a"] = 100
print(over, base, cm["a"])
del cm["a"]
print(cm["a"], over)
for bad in [lambda: cm["zz"], lambda: cm.__delitem__("a"), lambda: cm.pop("a"),
            lambda: collections.ChainMap({}).popitem()]:
    try:
        bad()
    except KeyError as e:
        print("KeyError", e)
print(cm.pop("c"), cm.pop("c", "dflt"), over)
child = cm.new_child()
child["z"] = 9
print(child, child.parents, child.maps[0])
kid = cm.new_child({"q": 1}, r=2)
print(kid.maps[0], list(kid))
print(collections.ChainMap(), collections.ChainMap().maps, bool(collections.ChainMap()))
print(cm.keys(), list(cm.values()), ("b", 20) in cm.items(), list(cm.items()))
print(cm == {"b": 20, "a": 1}, cm == {"b": 2, "a": 1})
c2 = cm.copy()
c2["new"] = 1
print("new" in cm, type(c2).__name__, c2.maps[1] is base)
print(collections.ChainMap.fromkeys("ab", 0))
m = collections.ChainMap({"x": 1}) | {"y": 2}
print(m)
m |= {"z": 3}
print(m)
print({"w": 0} | collections.ChainMap({"x": 1}, {"x": 5, "y": 2}))
print(cm.setdefault("s", 5), cm.setdefault("s", 6), cm.maps[0])
cm.update({"u": 1}, v=2)
cm.clear()
print(cm, len(cm))
class DefaultChain(collections.ChainMap):
    def __missing__(self, key):
        return "missing:" + key
print(DefaultChain({"a": 1})["nope"])
