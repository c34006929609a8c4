"""min/max (key, default, several args), sum (start, floats, lists), any/all short-circuit, sorted/reversed."""
print(max([3, 1, 2]), min("hello"), max(1, 5, 3), min((4, 2), (4, 1)), max([], default="empty"), min([], default=None))
print(max(["aa", "b", "ccc"], key=len), min(["aa", "b", "ccc"], key=len), max([1, -5, 3], key=abs), max("ab", "ba", key=lambda s: s[1]))
print(max([2, 2.0, True], key=lambda x: 1), min([(1, "b"), (1, "a")]), max({3: "x", 7: "y"}), max(range(0)) if False else "skip")
print(sum([1, 2, 3]), sum([1, 2], 10), sum([0.1] * 3), sum([[1], [2]], []), sum((x * x for x in range(4))), sum([], 5), sum(range(101)))
print(sum([1, 2.5, True]), sum([2**64, 1]), sum([1e308, 1e308, -1e308]), sum(start=7, iterable=[1]) if False else sum([1], start=7))
def gen(log):
    for v in [1, 0, 2]:
        log.append(v)
        yield v
log = []
print(any(gen(log)), log)
log = []
print(all(gen(log)), log)
print(any([]), all([]), any([0, 0.0, ""]), all(["x", 1, [0]]), any(x > 2 for x in range(5)))
print(sorted([3, 1, 2], reverse=True), list(reversed([1, 2, 3])), list(reversed(range(5))), list(reversed("abc")), list(reversed((1, 2))))
def attempt(label, fn):
    try:
        print(label, fn())
    except (TypeError, ValueError) as e:
        print(label, type(e).__name__, e)
attempt("max empty", lambda: max([]))
attempt("min empty", lambda: min(()))
attempt("max none args", lambda: max())
attempt("max int", lambda: max(5))
attempt("max mixed", lambda: max(1, "a"))
attempt("max default with args", lambda: max(1, 2, default=0))
attempt("sum strings", lambda: sum(["a", "b"], ""))
attempt("sum str items", lambda: sum(["a"]))
attempt("sum bytes", lambda: sum([b"a"], b""))
attempt("reversed set", lambda: reversed({1}))
attempt("reversed gen", lambda: reversed(x for x in []))
class Rev:
    def __reversed__(self):
        return iter("zyx")
class Seq:
    def __len__(self):
        return 3
    def __getitem__(self, i):
        return i * 10
print(list(reversed(Rev())), list(reversed(Seq())), list(Seq()) if False else [Seq()[i] for i in range(3)])
