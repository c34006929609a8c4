class V:
    def __init__(self, x, y): self.x, self.y = x, y
    def __repr__(self): return f"V({self.x}, {self.y})"
    def __add__(self, o): return V(self.x + o.x, self.y + o.y) if isinstance(o, V) else NotImplemented
    def __radd__(self, o): return V(self.x + o, self.y + o) if isinstance(o, int) else NotImplemented
    def __mul__(self, k): return V(self.x * k, self.y * k)
    __rmul__ = __mul__
    def __neg__(self): return V(-self.x, -self.y)
    def __abs__(self): return (self.x ** 2 + self.y ** 2) ** 0.5
    def __eq__(self, o): return isinstance(o, V) and (self.x, self.y) == (o.x, o.y)
    def __hash__(self): return hash((self.x, self.y))
    def __iadd__(self, o): self.x += o.x; self.y += o.y; return self
a = V(1, 2); b = V(3, 4)
print(a + b, 1 + a, a * 3, 3 * a, -a, abs(b))
print(sum([a, b], V(0, 0)), a == V(1, 2), a != b, len({a, V(1, 2), b}))
c = a; c += b; print(a, c is a)
try: a + "s"
except TypeError as e: print("TypeError", e)
