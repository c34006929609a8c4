"""set mutation: add/remove/discard/pop/clear/update family/copy, frozenset immutability."""
s = set()
s.add(1); s.add(1); s.add("x"); s.update([2, 3], "ab"); print(sorted(map(str, s)), len(s))
s.discard(99); s.discard("x"); s.remove(1); print(sorted(map(str, s)))
s.intersection_update({2, 3, "a", "zz"}); print(sorted(map(str, s)))
s.difference_update(["a"]); print(sorted(s))
s.symmetric_difference_update({3, 4}); print(sorted(s))
t = s.copy(); t.add(100); print(sorted(s), sorted(t))
p = {7}; print(p.pop(), p)
t.clear(); print(t, len(t))
def attempt(label, fn):
    try:
        print(label, fn())
    except (KeyError, TypeError, AttributeError) as e:
        print(label, type(e).__name__, e)
attempt("remove missing", lambda: {1}.remove(2))
attempt("remove tuple", lambda: set().remove((1, 2)))
attempt("pop empty", lambda: set().pop())
attempt("add unhashable", lambda: set().add({}))
attempt("frozen add", lambda: frozenset([1]).add(2))
attempt("discard unhashable", lambda: set().discard([1]))
f = frozenset("abc")
print(sorted(f), sorted(f.copy()), f.copy() is f, frozenset(f) is f, type(f | {"d"}).__name__)
print(set("hello") == set("olleh"), sorted(set(range(5)) - set(range(0, 5, 2))), set(), frozenset())
print(repr({1}), repr(frozenset({2})), repr(set([3])), str({4}))
# sets of tuples and membership of equal numbers
pairs = {(1, 2), (2, 1), (1, 2)}
print(len(pairs), (2, 1) in pairs, 1.0 in {1}, True in {1}, {1, True, 1.0})
