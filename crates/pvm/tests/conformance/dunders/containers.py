class Grid:
    def __init__(self, n): self.n = n; self.d = {}
    def __getitem__(self, k):
        if isinstance(k, slice): return [self[i] for i in range(*k.indices(self.n))]
        if not 0 <= k < self.n: raise IndexError("grid index out of range")
        return self.d.get(k, 0)
    def __setitem__(self, k, v): self.d[k] = v
    def __delitem__(self, k): del self.d[k]
    def __len__(self): return self.n
    def __contains__(self, v): return v in self.d.values()
    def __iter__(self): return (self[i] for i in range(self.n))
    def __bool__(self): return bool(self.d)
g = Grid(5); print(bool(g)); g[1] = 7; g[3] = 9
print(g[1], g[0:5:2], list(g), 9 in g, 8 in g, len(g), bool(g))
del g[1]; print(list(g))
try: g[10]
except IndexError as e: print("IndexError", e)
class Seq:
    def __getitem__(self, i):
        if i >= 3: raise IndexError
        return i * 10
print(list(Seq()), 20 in Seq())
