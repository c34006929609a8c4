# collections.UserDict: a MutableMapping over self.data with dict's extra methods.
from collections import UserDict
from collections.abc import MutableMapping, Mapping
import copy

d = UserDict({"a": 1}, b=2)
print(d, len(d), d["a"], d.data, type(d.data).__name__, isinstance(d, MutableMapping))
d["c"] = 3
del d["a"]
print(d, "c" in d, "a" in d, list(d), list(d.keys()), list(d.items()), list(d.values()))
print(d.get("b"), d.get("zz", 0), d.pop("b"), d.setdefault("e", 5), d)
d.update({"f": 6}, g=7)
print(d, d.popitem(), d == {"c": 3, "e": 5, "f": 6}, d != UserDict(c=3))
try:
    d["missing"]
except KeyError as e:
    print("KeyError", e)
try:
    del d["missing"]
except KeyError as e:
    print("KeyError", e)
print(UserDict(), UserDict([(1, 2)]), UserDict(dict=3), UserDict(None), UserDict(self=1))
print(d | {"z": 0}, {"y": 1} | d, d | UserDict(q=1), type(d | {}).__name__)
d |= {"h": 8}
d |= UserDict(i=9)
print(d, d.__or__(5), d.__ror__([]))
try:
    d | 5
except TypeError as e:
    print(type(e).__name__, e)
c = d.copy()
c["new"] = 1
print(c, "new" in d, type(c).__name__, UserDict.fromkeys("ab"), UserDict.fromkeys([1, 2], 0))


class Defaulting(UserDict):
    def __missing__(self, key):
        return key * 2


dd = Defaulting(x=1)
dd.extra = "attr"
print(dd["x"], dd["ab"], "ab" in dd, dd.get("ab"), len(dd))
cc = dd.copy()
print(type(cc).__name__, cc, cc.extra, cc.data is dd.data)
sc = copy.copy(dd)
print(type(sc).__name__, sc, sc.data is dd.data, copy.deepcopy(dd) == dd)
print(Defaulting.fromkeys("xy", 1), isinstance(dd, Mapping))


class Upper(UserDict):
    def __setitem__(self, key, value):
        super().__setitem__(key.upper(), value)


u = Upper({"a": 1}, b=2)
u.update(c=3)
u.setdefault("d", 4)
print(u, u.copy(), Upper.fromkeys(["k"]))
try:
    UserDict(1)
except TypeError as e:
    print(type(e).__name__, e)
try:
    UserDict({}, {})
except TypeError as e:
    print(type(e).__name__, e)
