"""list.sort/sorted: key, reverse, stability, mixed types, errors and mutation during sort."""
data = [("b", 2), ("a", 2), ("c", 1), ("a", 1)]
print(sorted(data), sorted(data, key=lambda t: t[1]), sorted(data, key=lambda t: t[1], reverse=True))
words = ["banana", "Apple", "cherry", "apple", "Banana"]
print(sorted(words), sorted(words, key=str.lower), sorted(words, key=len, reverse=True))
nums = [3, -1, 2.5, 0, -7, 10**20, True]
nums.sort(); print(nums)
nums.sort(key=abs, reverse=True); print(nums)
print(sorted("hello"), sorted({3: "a", 1: "b"}), sorted(x % 4 for x in range(10)), sorted([]))
class Rec:
    def __init__(self, k):
        self.k = k
    def __lt__(self, other):
        return self.k < other.k
    def __repr__(self):
        return f"R{self.k}"
print(sorted([Rec(3), Rec(1), Rec(2)]), max([Rec(3), Rec(5)]) if False else min([Rec(3), Rec(5)]))
def attempt(label, fn):
    try:
        print(label, fn())
    except (TypeError, ValueError, ZeroDivisionError) as e:
        print(label, type(e).__name__, e)
attempt("mixed", lambda: sorted([1, "a"]))
attempt("none", lambda: sorted([None, 1]))
attempt("positional key", lambda: [1].sort(len))
attempt("dicts", lambda: sorted([{}, {}]))
attempt("no lt", lambda: sorted([object(), object()]))
attempt("bad key", lambda: sorted([1, 2], key=5))
attempt("key raises", lambda: sorted([1, 0], key=lambda x: 1 / x))
l = [3, 2, 1]
def evil(x):
    l.append(x)
    return x
attempt("mutating", lambda: l.sort(key=evil))
print(l)
# stability with equal keys across reverse
pairs = [(1, "a"), (0, "b"), (1, "c"), (0, "d")]
print(sorted(pairs, key=lambda p: p[0], reverse=True))
print(list(reversed(sorted(pairs, key=lambda p: p[0]))))
