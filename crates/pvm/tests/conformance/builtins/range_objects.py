"""range: lengths, indexing, slicing (returns ranges), index/count, equality, reversed, membership, errors."""
rs = [range(10), range(2, 20, 3), range(10, 0, -2), range(0), range(-5, 5), range(5, 5), range(0, 10, 20)]
for r in rs:
    print(r, len(r), list(r)[:5], r[0] if r else None, r[-1] if r else None, 4 in r, r.count(4), bool(r))
r = range(2, 20, 3)
print(r[1:3], r[::-1], r[::2], r[-2:], r[5:100], list(r[::-1]), r.index(8), r.start, r.stop, r.step)
print(range(0, 3) == range(3), range(0) == range(5, 2), range(0, 4, 2) == range(0, 3, 2), range(1) != range(2), hash(range(3)) == hash(range(0, 3)))
print(list(reversed(range(1, 10, 4))), 2.0 in range(3), "x" in range(3), True in range(2), sum(range(0, 100, 7)), max(range(7)))
big = range(10**18)
print(len(big), big[-1], 10**17 in big, big.index(12345), big[10**17:10**17 + 3])
def attempt(label, fn):
    try:
        print(label, fn())
    except (ValueError, IndexError, TypeError, OverflowError) as e:
        print(label, type(e).__name__, e)
attempt("step zero", lambda: range(1, 2, 0))
attempt("index missing", lambda: range(5).index(7))
attempt("getitem out", lambda: range(3)[3])
attempt("float arg", lambda: range(1.5))
attempt("too many", lambda: range(1, 2, 3, 4))
attempt("no args", lambda: range())
attempt("str index", lambda: range(3)["a"])
print(list(range(3, -3, -1)), list(range(-3)), range(3).__len__(), [i for i in range(1, 4)], tuple(range(2)))
