"""tuple: count/index, concatenation and repetition, comparison, hashing, packing, single-element syntax, errors."""
t = (3, 1, 4, 1, 5, 9, 2, 6)
print(t.count(1), t.index(4), t.index(1, 2), t[2:5], t[::-1], t[-1], len(t), 9 in t, min(t), max(t), sorted(t))
print((1,) + (2, 3), (0,) * 3, () == tuple(), (1, 2) < (1, 2, 0), (1, "a") < (1, "b"), (2,) > (1, 9, 9), (1, 2) == [1, 2])
single = 5,
print(single, type(single).__name__, (5), type((5)).__name__, tuple("ab"), tuple(range(3)), tuple({"k": 1}))
a, b = b, a = 1, 2
print(a, b)
nested = ((1, 2), (3, (4, 5)))
print(nested[1][1][0], len(nested), hash(nested) == hash(((1, 2), (3, (4, 5)))))
def attempt(label, fn):
    try:
        print(label, fn())
    except (ValueError, TypeError, IndexError) as e:
        print(label, type(e).__name__, e)
attempt("index missing", lambda: t.index(7))
attempt("index range", lambda: t.index(1, 4))
attempt("item assign", lambda: t.__setitem__(0, 1) if hasattr(t, "__setitem__") else "no __setitem__")
attempt("add list", lambda: (1,) + [2])
attempt("out of range", lambda: t[20])
attempt("mul str", lambda: (1,) * "2")
attempt("hash list inside", lambda: hash((1, [2])))
attempt("compare", lambda: (1, 2) < (1, "x"))
lst = [1, 2]
tt = (lst, 3)
lst.append(9)
print(tt)
try:
    tt[0] += [10]
except TypeError as e:
    print(type(e).__name__, e, tt)
