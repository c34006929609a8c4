# collections.abc: subclassing the ABCs -- abstract methods enforced, mixin methods provided.
from collections.abc import (Mapping, MutableMapping, Sequence, MutableSequence, Set,
                             MutableSet, Iterator, Generator, KeysView, ItemsView, ValuesView,
                             MappingView, Hashable, Sized)


class Ro(Mapping):
    def __init__(self, **kw):
        self._d = dict(kw)

    def __getitem__(self, k):
        return self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)

    def __repr__(self):
        return f"Ro({self._d})"


m = Ro(a=1, b=2)
print(m.get("a"), m.get("z"), m.get("z", 0), "a" in m, "z" in m, len(m))
print(list(m.keys()), list(m.items()), list(m.values()))
print(m.keys(), type(m.items()).__name__, m.values())
print(m == {"a": 1, "b": 2}, m == {"a": 1}, m != Ro(a=1, b=2), m == [1])
print(("a", 1) in m.items(), ("a", 2) in m.items(), 2 in m.values(), "b" in m.keys())
print(sorted(m.keys() & {"a", "x"}), sorted(m.keys() | {"x"}), sorted(m.keys() - {"a"}))
print(sorted(m.items() ^ {("a", 1), ("c", 3)}), m.keys() <= {"a", "b", "c"}, m.keys() < {"a", "b"})
print(m.keys().isdisjoint(["x"]), len(m.items()), m.__reversed__)
try:
    hash(m)
except TypeError as e:
    print(type(e).__name__, e)
try:
    reversed(m)
except TypeError as e:
    print(type(e).__name__, e)


class Half(Mapping):
    def __getitem__(self, k):
        return k


try:
    Half()
except TypeError as e:
    print(type(e).__name__, e)


class Rw(MutableMapping):
    def __init__(self):
        self._d = {}

    def __getitem__(self, k):
        return self._d[k]

    def __setitem__(self, k, v):
        self._d[k] = v

    def __delitem__(self, k):
        del self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)


d = Rw()
d.update({"x": 1}, y=2)
d.update([("z", 3)])
d.update(Ro(w=4))
print(dict(d.items()), d.setdefault("x", 9), d.setdefault("n", 5), d.pop("y"), d.pop("q", "dflt"))
print(d.popitem(), dict(d))
try:
    d.pop("missing")
except KeyError as e:
    print("KeyError", e)
d.clear()
print(len(d), dict(d))
try:
    d.popitem()
except KeyError as e:
    print("KeyError", repr(e))


class Tup(Sequence):
    def __init__(self, *items):
        self._items = items

    def __getitem__(self, i):
        return self._items[i]

    def __len__(self):
        return len(self._items)


t = Tup(1, 2, 3, 2)
print(list(t), list(reversed(t)), 2 in t, 9 in t, t.index(2), t.index(2, 2), t.count(2))
print(t.index(3, -2), t.index(1, 0, 1))
for args in ((9,), (1, 1), (2, 0, 1)):
    try:
        t.index(*args)
    except ValueError as e:
        print("ValueError", repr(e))


class Lst(MutableSequence):
    def __init__(self, *items):
        self._l = list(items)

    def __getitem__(self, i):
        return self._l[i]

    def __setitem__(self, i, v):
        self._l[i] = v

    def __delitem__(self, i):
        del self._l[i]

    def __len__(self):
        return len(self._l)

    def insert(self, i, v):
        self._l.insert(i, v)

    def __repr__(self):
        return f"Lst{self._l}"


s = Lst(1, 2)
s.append(3)
s.extend([4, 5])
s.extend(s)
print(s, s.pop(), s.pop(0), s)
s.remove(3)
s.reverse()
s += (7, 8)
print(s, len(s))
s.clear()
print(s)
for call in (lambda: s.pop(), lambda: s.remove(1)):
    try:
        call()
    except (IndexError, ValueError) as e:
        print(type(e).__name__, e)


class FSet(Set):
    def __init__(self, it=()):
        self._items = []
        for x in it:
            if x not in self._items:
                self._items.append(x)

    def __contains__(self, x):
        return x in self._items

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)

    def __repr__(self):
        return f"FSet({self._items})"

    __hash__ = Set._hash


a, b = FSet([1, 2, 3]), FSet([3, 4])
print(a & b, a | b, a - b, a ^ b, [3] & a, a.__rsub__([4, 1]))
print(a <= FSet([1, 2, 3, 4]), a < a, a >= FSet([1]), a > a, a == FSet([3, 2, 1]), a == {1, 2, 3})
print(a.isdisjoint(b), a.isdisjoint([7]), hash(FSet([1, 2])) == hash(FSet([2, 1])),
      hash(FSet()), hash(FSet([1, 2, 3])))
print(a.__le__(5), a.__and__(5), a.__sub__(5))


class MSet(MutableSet):
    def __init__(self, it=()):
        self._items = []
        for x in it:
            self.add(x)

    def __contains__(self, x):
        return x in self._items

    def __iter__(self):
        return iter(list(self._items))

    def __len__(self):
        return len(self._items)

    def add(self, x):
        if x not in self._items:
            self._items.append(x)

    def discard(self, x):
        if x in self._items:
            self._items.remove(x)

    def __repr__(self):
        return f"MSet({self._items})"


ms = MSet([1, 2, 3])
ms.remove(2)
print(ms, ms.pop(), ms)
ms |= [5, 6]
ms &= [5, 6, 7]
ms ^= [6, 8]
ms -= [8]
print(ms)
ms ^= ms
print(ms)
try:
    ms.remove(42)
except KeyError as e:
    print("KeyError", e)
try:
    ms.pop()
except KeyError as e:
    print("KeyError", repr(e))
ms.add(1)
ms.clear()
print(ms, len(ms))


class Count(Iterator):
    def __init__(self, n):
        self.n = n

    def __next__(self):
        if self.n == 0:
            raise StopIteration
        self.n -= 1
        return self.n


c = Count(3)
print(iter(c) is c, list(c))


class Echo(Generator):
    def send(self, v):
        if v == "stop":
            raise StopIteration
        return v

    def throw(self, typ, val=None, tb=None):
        raise StopIteration


e = Echo()
print(next(e), e.send(4), e.close())


class Stubborn(Generator):
    def send(self, v):
        return 1

    def throw(self, typ, val=None, tb=None):
        return 2


try:
    Stubborn().close()
except RuntimeError as ex:
    print(type(ex).__name__, ex)

v = KeysView({"k": 1, "j": 2})
print(v, len(v), list(v), sorted(v | {"z"}), isinstance(v & {"k"}, set))
print(ItemsView({1: 2}), ValuesView({1: 2}), MappingView([1, 2]), len(MappingView("abc")))
try:
    Sized.__len__(None)
    print(Hashable.__hash__(None), Sized.__len__(None))
except TypeError as ex:
    print(type(ex).__name__, ex)
