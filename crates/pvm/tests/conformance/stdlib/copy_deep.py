import copy

l = [1, [2, [3, [4]]], {"k": [5]}]
d = copy.deepcopy(l)
d[1][1][1].append(99)
d[2]["k"].append(6)
print(l, d)
shared = [0]
outer = [shared, shared]
dc = copy.deepcopy(outer)
print(dc[0] is dc[1], dc[0] is shared)
cyc = [1]
cyc.append(cyc)
cc = copy.deepcopy(cyc)
print(cc[1] is cc, cc is not cyc, len(cc))
t = (1, 2, "x")
print(copy.deepcopy(t) is t)
t2 = (1, [2])
tc = copy.deepcopy(t2)
print(tc == t2, tc is t2, tc[1] is t2[1])
fs = frozenset([1, 2])
print(copy.deepcopy(fs) == fs)
s = {(1, 2), "a"}
print(copy.deepcopy(s) == s)
dd = {"a": {"b": {"c": 1}}}
dd2 = copy.deepcopy(dd)
dd2["a"]["b"]["c"] = 2
print(dd, dd2)
memo = {}
x = [1, 2]
y1 = copy.deepcopy(x, memo)
y2 = copy.deepcopy(x, memo)
print(y1 is y2, len(memo) >= 1)
nested = {"self": None}
nested["self"] = nested
nc = copy.deepcopy(nested)
print(nc["self"] is nc)
tup_cycle = ([],)
tup_cycle[0].append(tup_cycle)
tcc = copy.deepcopy(tup_cycle)
print(tcc[0][0] is tcc, tcc is not tup_cycle)
print(copy.deepcopy(3.5), copy.deepcopy("s"), copy.deepcopy(None), copy.deepcopy(b"b"), copy.deepcopy(True))
