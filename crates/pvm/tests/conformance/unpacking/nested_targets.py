"""Nested and mixed assignment targets: attributes, subscripts, slices and chained assignment."""

class Box:
    pass

b = Box()
data = {"k": [0, 0, 0]}
b.x, data["k"][1], (p, q) = "first", "second", "pq"
print(b.x, data, p, q)

lst = list(range(6))
lst[1:3], last = ["a", "b", "c"], "L"
print(lst, last)

# chained assignment assigns left to right with the same object
a = b.y = lst[0] = [1]
print(a is b.y, a is lst[0])

# order of evaluation of targets: left to right
order = []
class Rec(dict):
    def __setitem__(self, k, v):
        order.append(k)
        super().__setitem__(k, v)
r = Rec()
r["one"], r["two"], r["three"] = 1, 2, 3
print(order)

# unpacking into a list display target
[m, [n, o]] = (1, (2, 3))
print(m, n, o)

# augmented assignment is not an unpacking target; subscripts evaluate once
calls = []
def key():
    calls.append("k")
    return "c"
counter = {"c": 1}
counter[key()] += 10
print(counter, calls)

# star target in nested position
(a, *b), c = [1, 2, 3], 4
print(a, b, c)

# walrus inside an unpacking right-hand side
x, y = (z := 5), z * 2
print(x, y, z)

# targets that are loop variables persist after the loop
for i, (j, k) in enumerate([(1, 2), (3, 4)]):
    pass
print(i, j, k)
