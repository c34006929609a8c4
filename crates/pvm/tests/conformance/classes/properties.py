class Temp:
    def __init__(self, c): self._c = c
    @property
    def c(self): return self._c
    @c.setter
    def c(self, v):
        if v < -273.15: raise ValueError("below absolute zero")
        self._c = v
    @c.deleter
    def c(self): print("deleting"); del self._c
    @property
    def f(self): return self._c * 9 / 5 + 32
t = Temp(20); print(t.c, t.f)
t.c = 100; print(t.f)
try: t.c = -300
except ValueError as e: print("ValueError", e)
try: t.f = 3
except AttributeError as e: print("AttributeError", e)
del t.c
print(hasattr(t, "_c"))
class Counter:
    count = 0
    def __init__(self): Counter.count += 1
    @staticmethod
    def twice(x): return 2 * x
    @classmethod
    def make(cls): return cls()
Counter(); Counter.make(); print(Counter.count, Counter.twice(4), Counter().twice(5))
