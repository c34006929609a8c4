"""list mutators: append/extend/insert/remove/pop/clear/reverse/copy and their errors."""
l = [3, 1, 2]
l.append(4); l.extend((5, 6)); l.extend(x * 10 for x in range(2)); l.insert(0, "head"); l.insert(100, "tail"); l.insert(-1, "before-tail")
print(l)
print(l.pop(), l.pop(0), l.pop(-2), l)
l.remove(1)
print(l, l.index(2), l.count(0), len(l))
c = l.copy(); c.reverse(); print(c, l is not c, c == l[::-1])
c.clear(); print(c, l)
def attempt(label, fn):
    try:
        print(label, fn())
    except (ValueError, IndexError, TypeError) as e:
        print(label, type(e).__name__, e)
attempt("remove missing", lambda: [1, 2].remove(3))
attempt("pop empty", lambda: [].pop())
attempt("pop range", lambda: [1].pop(5))
attempt("index missing", lambda: [1, 2].index(9))
attempt("index range", lambda: [1, 2, 1].index(1, 1, 2))
attempt("index start", lambda: [1, 2, 1].index(1, 1))
attempt("extend int", lambda: [].extend(5))
attempt("insert str", lambda: [].insert("0", 1))
attempt("count none", lambda: [None, None].count(None))
# extend with itself and += with any iterable
a = [1, 2]; a.extend(a); print(a)
a += "xy"; print(a)
a += range(2); print(a)
try:
    a = a + "z"
except TypeError as e:
    print(type(e).__name__, e)
# remove uses ==, and index finds equal numbers of other types
m = [1.0, 2, True]
m.remove(True); print(m, m.index(2.0), [0, False].count(0))
