import operator as op

class I:
    def __index__(self):
        return 7
class Bad:
    def __index__(self):
        return "x"
print(op.index(5), op.index(True), op.index(I()), [0] * 8 == [0] * op.index(I()))
for v in ["a", 1.5, None, Bad()]:
    try:
        op.index(v)
    except TypeError as e:
        print("TypeError", e)
print(op.length_hint([1, 2, 3]), op.length_hint(iter([1, 2])), op.length_hint(5), op.length_hint(5, 9))
class H:
    def __init__(self, v):
        self.v = v
    def __length_hint__(self):
        return self.v
print(op.length_hint(H(4)), op.length_hint(H(NotImplemented), 3))
for v in [H("x"), H(-1)]:
    try:
        op.length_hint(v)
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
try:
    op.length_hint([], "a")
except TypeError as e:
    print("TypeError", e)
print(op.length_hint(range(10)), op.length_hint({"a": 1}), op.length_hint((x for x in [])))
print(op.index(-3), op.index(2 ** 70))
