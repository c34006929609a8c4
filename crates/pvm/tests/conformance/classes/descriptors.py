class Typed:
    def __set_name__(self, owner, name): self.name = "_" + name
    def __get__(self, obj, objtype=None):
        if obj is None: return self
        return getattr(obj, self.name)
    def __set__(self, obj, value):
        if not isinstance(value, int): raise TypeError(f"{self.name[1:]} must be int")
        setattr(obj, self.name, value)
class P:
    x = Typed(); y = Typed()
    def __init__(self, x, y): self.x = x; self.y = y
p = P(1, 2); print(p.x, p.y, type(P.x).__name__)
try: p.x = "a"
except TypeError as e: print("TypeError", e)
class Slotted:
    __slots__ = ("a", "b")
    def __init__(self): self.a = 1
s = Slotted(); print(s.a)
try: s.c = 3
except AttributeError as e: print("AttributeError", e)
try: print(s.b)
except AttributeError as e: print("AttributeError", e)
