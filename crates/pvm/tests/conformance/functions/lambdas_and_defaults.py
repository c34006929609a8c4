import_free = True
sq = lambda x: x * x
compose = lambda f, g: lambda x: f(g(x))
print(sq(7), compose(sq, lambda x: x + 1)(3), (lambda *a, **k: (a, k))(1, 2, z=3))
def make(n=[]):
    n.append(len(n)); return n
print(make(), make(), make([9]))
def kw_only(a, *, scale=2, **extra): return a * scale, extra
print(kw_only(3), kw_only(3, scale=5, note="x"))
print(sorted(["apple", "Banana", "cherry"], key=lambda s: s.lower()), max(range(10), key=lambda v: (v % 3, -v)))
