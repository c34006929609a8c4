import collections
import copy

P = collections.namedtuple("P", "x y")
p = P(1, [2])
print(copy.copy(p), copy.copy(p) == p)
dp = copy.deepcopy(p)
dp.y.append(3)
print(p, dp, type(dp).__name__)
print(copy.deepcopy(P(1, 2)) == P(1, 2))
dd = collections.defaultdict(list, {"a": [1]})
dc = copy.deepcopy(dd)
dc["a"].append(2)
dc["b"].append(0)
print(dd, dc)
c = collections.Counter("aab")
print(copy.copy(c), copy.deepcopy(c) == c)
od = collections.OrderedDict([("z", 1), ("a", [2])])
odc = copy.deepcopy(od)
odc["a"].append(3)
print(od, odc)
dq = collections.deque([[1], 2], maxlen=5)
dqc = copy.deepcopy(dq)
dqc[0].append(9)
print(dq, dqc, copy.copy(dq))
class Point(tuple):
    def __new__(cls, x, y):
        return tuple.__new__(cls, (x, y))
    def __getnewargs__(self):
        return tuple(self)
print(type(copy.deepcopy(Point(1, 2))).__name__, copy.deepcopy(Point(1, 2)))
