import copy

l = [1, [2, 3], {"a": 4}]
c = copy.copy(l)
print(c, c == l, c is l, c[1] is l[1])
d = {"x": [1], "y": 2}
dc = copy.copy(d)
dc["x"].append(9)
dc["z"] = 0
print(d, dc)
s = {1, 2}
print(copy.copy(s) == s, copy.copy(s) is s)
t = (1, [2])
fs = frozenset([1])
print(copy.copy(t) is t, copy.copy(fs) is fs, copy.copy("str") == "str", copy.copy(5), copy.copy(None))
ba = bytearray(b"ab")
bc = copy.copy(ba)
bc.append(99)
print(ba, bc)
class P:
    def __init__(self, x):
        self.x = x
        self.items = []
p = P(1)
q = copy.copy(p)
q.x = 2
q.items.append("shared")
print(type(q).__name__, p.x, q.x, p.items, q.items is p.items)
class WithCopy:
    def __init__(self, v):
        self.v = v
    def __copy__(self):
        print("__copy__ called")
        return WithCopy(self.v * 10)
print(copy.copy(WithCopy(3)).v)
print(copy.copy(int) is int, copy.copy(len) is len)
def f():
    pass
print(copy.copy(f) is f, copy.copy(range(3)) == range(3))
print(copy.Error is copy.error, issubclass(copy.Error, Exception), copy.__all__)
