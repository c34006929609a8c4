"""Subclassing builtins: list, dict, str, int, tuple with overridden methods and super() calls."""
class Stack(list):
    def push(self, x):
        self.append(x)
        return self
    def peek(self):
        return self[-1]
s = Stack([1]).push(2).push(3)
print(s, s.peek(), len(s), isinstance(s, list), s + [4], type(s + [4]).__name__, s[::-1], type(s[:1]).__name__)
class DefaultDict(dict):
    def __init__(self, default, *a, **k):
        super().__init__(*a, **k)
        self.default = default
    def __missing__(self, key):
        self[key] = self.default()
        return self[key]
d = DefaultDict(list, a=[1])
d["b"].append(2)
print(d, d.default.__name__, len(d), "b" in d, dict(d) == {"a": [1], "b": [2]})
class Upper(str):
    def __new__(cls, v):
        return super().__new__(cls, v.upper())
    def exclaim(self):
        return self + "!"
u = Upper("hey")
print(u, u.exclaim(), type(u).__name__, u == "HEY", len(u), u.lower(), type(u.lower()).__name__)
class Even(int):
    def __new__(cls, v):
        if v % 2:
            raise ValueError(f"{v} is odd")
        return super().__new__(cls, v)
    def half(self):
        return self // 2
print(Even(10), Even(10).half(), Even(4) + 1, type(Even(4) + 1).__name__)
try:
    Even(3)
except ValueError as e:
    print(type(e).__name__, e)
class Pair(tuple):
    def __new__(cls, a, b):
        return super().__new__(cls, (a, b))
    @property
    def first(self):
        return self[0]
p = Pair(1, 2)
print(p, p.first, p[1], len(p), p == (1, 2), hash(p) == hash((1, 2)), isinstance(p, tuple))
class Logged(dict):
    def __setitem__(self, k, v):
        print("set", k)
        super().__setitem__(k, v)
l = Logged()
l["x"] = 1
l.update(y=2)
print(l)
