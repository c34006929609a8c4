"""Arithmetic dunders: reflected operators, NotImplemented fallback, in-place operators and their fallbacks."""
class V:
    def __init__(self, *c):
        self.c = c
    def __repr__(self):
        return f"V{self.c}"
    def __add__(self, o):
        if isinstance(o, V):
            return V(*(a + b for a, b in zip(self.c, o.c)))
        if isinstance(o, (int, float)):
            return V(*(a + o for a in self.c))
        return NotImplemented
    def __radd__(self, o):
        return self.__add__(o)
    def __mul__(self, k):
        return V(*(a * k for a in self.c)) if isinstance(k, (int, float)) else NotImplemented
    __rmul__ = __mul__
    def __sub__(self, o):
        return self + (-1 * o)
    def __neg__(self):
        return V(*(-a for a in self.c))
    def __pos__(self):
        return self
    def __abs__(self):
        return sum(a * a for a in self.c) ** 0.5
    def __matmul__(self, o):
        if not isinstance(o, V):
            return NotImplemented
        return sum(a * b for a, b in zip(self.c, o.c))
    def __truediv__(self, k):
        return V(*(a / k for a in self.c))
    def __floordiv__(self, k):
        return V(*(a // k for a in self.c))
    def __mod__(self, k):
        return V(*(a % k for a in self.c))
    def __pow__(self, k):
        return V(*(a ** k for a in self.c))
    def __rpow__(self, base):
        return V(*(base ** a for a in self.c))
    def __invert__(self):
        return V(*reversed(self.c))
    def __and__(self, o): return "and"
    def __or__(self, o): return "or"
    def __xor__(self, o): return "xor"
    def __lshift__(self, o): return "lshift"
    def __rshift__(self, o): return "rshift"
    def __rlshift__(self, o): return "rlshift"
a, b = V(1, 2), V(3, 4)
print(a + b, a + 1, 1 + a, a * 3, 3 * a, a - b, -a, +a, abs(V(3, 4)), a @ b, b / 2, b // 2, b % 2, a ** 2, 2 ** a, ~a)
print(a & 1, a | 1, a ^ 1, a << 1, a >> 1, 1 << a, sum([a, b], V(0, 0)))
class Acc:
    def __init__(self):
        self.items = []
    def __iadd__(self, x):
        self.items.append(x)
        return self
    def __add__(self, x):
        return "plain add"
x = acc = Acc()
x += 1; x += 2
print(x is acc, acc.items)
v = V(1)
v += 5
print(v)
for bad in [lambda: a + "s", lambda: "s" + a, lambda: a * a, lambda: a @ 1, lambda: a < b]:
    try:
        bad()
    except TypeError as e:
        print(type(e).__name__, e)
class Sub(V):
    def __radd__(self, o):
        return "Sub.__radd__ wins"
print(V(1) + Sub(2))
