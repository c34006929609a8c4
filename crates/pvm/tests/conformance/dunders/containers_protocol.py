"""Container dunders: __len__, __getitem__ (ints and slices), __setitem__, __delitem__, __contains__, __iter__, __reversed__, __missing__."""
class Grid:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.cells = {}
    def __len__(self):
        return self.w * self.h
    def __getitem__(self, key):
        if isinstance(key, slice):
            return [self[i] for i in range(*key.indices(len(self)))]
        if isinstance(key, tuple):
            r, c = key
            return self.cells.get((r, c), ".")
        if not 0 <= key < len(self):
            raise IndexError("grid index out of range")
        return self[divmod(key, self.w)]
    def __setitem__(self, key, v):
        self.cells[key] = v
    def __delitem__(self, key):
        del self.cells[key]
    def __contains__(self, v):
        return v in self.cells.values()
g = Grid(3, 2)
g[0, 1] = "x"; g[1, 2] = "y"
print(len(g), g[0, 1], g[1], g[5], g[::2], g[1:4], "x" in g, "z" in g, list(g), bool(g))
del g[0, 1]
print(g[0, 1], "x" in g)
try:
    g[6]
except IndexError as e:
    print(type(e).__name__, e)
try:
    del g[9, 9]
except KeyError as e:
    print(type(e).__name__, e)
class Countdown:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return iter(range(self.n, 0, -1))
    def __reversed__(self):
        return iter(range(1, self.n + 1))
    def __len__(self):
        return self.n
c = Countdown(3)
print(list(c), list(reversed(c)), 2 in c, sorted(c), len(c), sum(c), max(c), [*c], dict.fromkeys(c))
class Empty:
    def __len__(self):
        return 0
print(bool(Empty()), not Empty(), "truthy" if Empty() else "falsy")
class BadLen:
    def __len__(self):
        return -1
for bad in [lambda: len(BadLen()), lambda: len(5), lambda: Countdown(2)[0], lambda: 1 in 5]:
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
