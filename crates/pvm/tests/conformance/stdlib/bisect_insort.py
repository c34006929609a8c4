import bisect

a = []
for x in [5, 1, 4, 1, 5, 9, 2, 6]:
    bisect.insort(a, x)
print(a)
b = [(1, "a"), (2, "b")]
bisect.insort_left(b, (1, "a"))
bisect.insort_right(b, (2, "a"))
print(b)
c = [1.0, 2.0]
bisect.insort_left(c, 1)
bisect.insort_right(c, 2)
print(c, [type(v).__name__ for v in c])
d = [1, 3]
bisect.insort(d, 2, 0, 1)
print(d)
try:
    bisect.insort((1,), 1)
except AttributeError as e:
    print("AttributeError", e)
class Rec:
    def __init__(self, k, tag):
        self.k, self.tag = k, tag
    def __repr__(self):
        return f"Rec({self.k},{self.tag})"
recs = [Rec(1, "a"), Rec(3, "b")]
bisect.insort(recs, Rec(2, "new"), key=lambda r: r.k)
bisect.insort_left(recs, Rec(3, "left"), key=lambda r: r.k)
bisect.insort_right(recs, Rec(1, "right"), key=lambda r: r.k)
print(recs)
s = list("aceg")
bisect.insort(s, "d")
print("".join(s))
