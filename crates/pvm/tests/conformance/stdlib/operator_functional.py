import functools
import operator as op

print(functools.reduce(op.mul, range(1, 6)), functools.reduce(op.or_, [1, 2, 4]))
print(list(map(op.add, [1, 2], [10, 20])), list(map(op.neg, [1, -2])))
print(list(filter(op.truth, [0, 1, "", "a"])))
inventory = [("apple", 3), ("banana", 2), ("pear", 5), ("orange", 1)]
getcount = op.itemgetter(1)
print(list(map(getcount, inventory)), sorted(inventory, key=getcount))
print(sorted(inventory, key=op.itemgetter(1, 0), reverse=True))
data = [{"n": "b", "v": 2}, {"n": "a", "v": 2}, {"n": "c", "v": 1}]
print([d["n"] for d in sorted(data, key=op.itemgetter("v", "n"))])
print(list(map(op.methodcaller("strip", "-"), ["-a-", "b--"])))
print(sum(map(op.mul, [1, 2, 3], [4, 5, 6])))
dispatch = {"+": op.add, "-": op.sub, "*": op.mul, "/": op.truediv}
print([dispatch[s](6, 3) for s in "+-*/"])
print(functools.reduce(op.concat, [[1], [2], [3]]))
print(op.attrgetter("real", "imag")(3 + 4j))
print(list(map(op.pow, [2, 3], [3, 2])), list(map(op.is_, [None, 1], [None, None])))
