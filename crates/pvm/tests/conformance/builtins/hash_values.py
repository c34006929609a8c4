"""hash() of ints, floats, bools, tuples and frozensets of them: equal to CPython's values.
(str/bytes hashes are deliberately different in the PVM, so they are only compared.)"""

ints = [0, 1, -1, -2, 2**31, 2**61 - 2, 2**61 - 1, 2**61, 2**64 + 5, -2**64, 10**40, -(10**40)]
print([hash(i) for i in ints])
floats = [0.0, -0.0, 0.5, -2.5, 1e100, 1e-100, float("inf"), float("-inf"), 3.141592653589793]
print([hash(f) for f in floats])
print(hash(True), hash(False), hash(1) == hash(1.0) == hash(True))
tuples = [(), (0,), (1, 2), (2, 1), (-1,), (1, (2, (3, (4,)))), (True, 1.5, -7, 2**100),
          tuple(range(50)), ((), ((),)), (0.0, -0.0)]
print([hash(t) for t in tuples])
print(hash((1, 2)) == hash((1.0, 2)), hash((1, 2)) != hash((2, 1)))
sets = [frozenset(), frozenset([1]), frozenset([1, 2, 3]), frozenset([3, 2, 1]), frozenset([(1, 2), -5]),
        frozenset(range(100)), frozenset([frozenset([1]), frozenset([2])])]
print([hash(s) for s in sets])
print(hash(frozenset([1, 2])) == hash(frozenset([2, 1])))

# user __hash__ results are reduced like ints; -1 becomes -2
class H:
    def __init__(self, v):
        self.v = v
    def __hash__(self):
        return self.v
print([hash(H(v)) for v in [-1, 5, 2**64, -(2**64)]])
print(hash((H(3), H(-1))))

# str and bytes: equal values hash equal (the values themselves differ from CPython by design)
print(hash("abc") == hash("abc"), hash(b"abc") == hash(b"abc"), hash(("a", 1)) == hash(("a", 1)))

def attempt(v):
    try:
        print(hash(v))
    except TypeError as e:
        print(type(e).__name__, e)
attempt([1])
attempt((1, [2]))
attempt({1: 2})
attempt({1})
class NoHash:
    __hash__ = None
attempt(NoHash())
class BadHash:
    def __hash__(self):
        return "x"
attempt(BadHash())
class EqOnly:
    def __eq__(self, other):
        return True
attempt(EqOnly())

# dict and set lookups agree across equal numeric keys
d = {1: "int", (1, 2): "tuple"}
print(d[1.0], d[True], d[(1.0, 2.0)], {0, 0.0, False, -0.0})
