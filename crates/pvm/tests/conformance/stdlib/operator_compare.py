import operator as op

for a, b in [(1, 2), (2, 2), (3, 2), ("a", "b"), ((1, 2), (1, 3))]:
    print(op.lt(a, b), op.le(a, b), op.eq(a, b), op.ne(a, b), op.ge(a, b), op.gt(a, b))
print(op.not_(0), op.not_([1]), op.truth(""), op.truth("x"), op.truth(None))
x = [1]
print(op.is_(x, x), op.is_(x, [1]), op.is_not(x, [1]), op.is_not(None, None))
try:
    op.lt(1, "a")
except TypeError as e:
    print("TypeError", e)
class W:
    def __init__(self, v):
        self.v = v
    def __eq__(self, o):
        return "eq-result"
    def __lt__(self, o):
        return "lt-result"
print(op.eq(W(1), W(2)), op.lt(W(1), W(2)), op.ne(W(1), W(2)))
print(op.eq(1, 1.0), op.eq(float("nan"), float("nan")))
print(sorted([3, 1, 2], key=op.neg))
print(op.contains([1, 2], 2), op.contains("abc", "d"), op.contains({"k": 1}, "k"))
print(op.truth(0.0), op.truth([]), op.truth(W(0)))
