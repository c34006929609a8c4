"""set/frozenset operators and their method forms, with results shown sorted (PVM sets keep
insertion order, CPython's do not)."""
a, b = {1, 2, 3, 4}, {3, 4, 5}
show = lambda s: (type(s).__name__, sorted(s))
print(show(a | b), show(a & b), show(a - b), show(b - a), show(a ^ b))
print(show(a.union(b, [9])), show(a.intersection(b, {4})), show(a.difference(b, {1})), show(a.symmetric_difference([4, 6])))
fa = frozenset(a)
print(show(fa | b), show(b | fa), show(fa & {1}), show(fa - b), fa == a, a == fa, hash(fa) == hash(frozenset(a)))
print(a <= a, a < a, {1} < a, a >= {1, 2}, a > a, a.issubset(range(10)), a.issuperset([1, 2]), a.isdisjoint(b))
print({1, 2} == {2, 1}, {1} != {1.0}, set() == frozenset(), len(a | b), 5 in b, 5 not in a)
c = set(a)
c |= {10}; c &= {1, 2, 10, 11}; c -= {2}; c ^= {1, 20}
print(sorted(c))
def attempt(label, fn):
    try:
        print(label, fn())
    except (TypeError, KeyError) as e:
        print(label, type(e).__name__, e)
attempt("or list", lambda: a | [1])
attempt("sub list", lambda: a - [1])
attempt("lt list", lambda: a < [1])
attempt("union int", lambda: a.union(5))
attempt("unhashable", lambda: {[1]})
attempt("in unhashable", lambda: [1] in a)
attempt("frozenset in set", lambda: frozenset([1]) in {frozenset([1])})
attempt("set in set", lambda: {1} in {frozenset([1])})
