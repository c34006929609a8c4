import operator as op

print(op.add(2, 3), op.sub(2, 3), op.mul(2, 3), op.truediv(7, 2), op.floordiv(7, 2), op.mod(7, 3))
print(op.pow(2, 10), op.pow(2, -1), op.neg(5), op.pos(-5), op.abs(-3), op.abs(-2.5))
print(op.and_(12, 10), op.or_(12, 10), op.xor(12, 10), op.inv(5), op.invert(0), op.lshift(1, 5), op.rshift(64, 3))
print(op.add("a", "b"), op.mul("ab", 3), op.add([1], [2]), op.mod("%d-%s", (1, "x")))
print(op.floordiv(-7, 2), op.mod(-7, 2), op.truediv(1, 4))
try:
    op.truediv(1, 0)
except ZeroDivisionError as e:
    print("ZeroDivisionError", e)
try:
    op.add(1, "a")
except TypeError as e:
    print("TypeError", e)
class M:
    def __matmul__(self, o):
        return "matmul"
    def __rmatmul__(self, o):
        return "rmatmul"
print(op.matmul(M(), 1), op.matmul(1, M()))
print(op.and_({1, 2}, {2, 3}), op.or_({1}, {2}) == {1, 2}, op.xor(True, False))
print(op.neg(True), op.pos(True), op.inv(True))
print(op.add(0.1, 0.2), op.mul(1.5, 2))
try:
    op.matmul(1, 2)
except TypeError as e:
    print("TypeError", e)
