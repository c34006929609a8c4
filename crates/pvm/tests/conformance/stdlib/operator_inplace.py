import operator as op

a = [1]
b = op.iadd(a, [2])
print(a, b, a is b)
n = 5
print(op.iadd(n, 1), n)
print(op.isub(5, 2), op.imul(3, 4), op.itruediv(7, 2), op.ifloordiv(7, 2), op.imod(7, 3), op.ipow(2, 5))
print(op.iand(6, 3), op.ior(6, 3), op.ixor(6, 3), op.ilshift(1, 4), op.irshift(32, 2))
s = {1, 2}
t = op.ior(s, {3})
print(sorted(s), t is s)
l = [1, 2]
print(op.imul(l, 2), l)
print(op.iconcat([1], (2, 3)), op.iconcat("a", "b"))
try:
    op.iconcat(1, 2)
except TypeError as e:
    print("TypeError", e)
try:
    op.concat({}, {})
except TypeError as e:
    print("TypeError", e)
print(op.concat((1,), (2,)), op.concat("x", "y"))
class Acc:
    def __init__(self):
        self.items = []
    def __iadd__(self, other):
        self.items.append(other)
        return self
acc = Acc()
r = op.iadd(acc, 5)
print(r is acc, acc.items)
class Imm:
    def __init__(self, v):
        self.v = v
    def __add__(self, o):
        return Imm(self.v + o)
i = Imm(1)
j = op.iadd(i, 2)
print(j is i, j.v, i.v)
print(op.imatmul.__name__, op.ixor.__name__)
