import functools

class Data:
    def __init__(self, n):
        self.n = n
        self.calls = 0
    @functools.cached_property
    def total(self):
        """The sum."""
        self.calls += 1
        return sum(range(self.n))

d = Data(10)
print(d.total, d.total, d.calls)
print("total" in d.__dict__, d.__dict__["total"])
del d.total
print(d.total, d.calls)
d.total = 99
print(d.total, d.calls)
print(type(Data.total).__name__, Data.total.attrname, Data.total.__doc__)
e = Data(4)
print(e.total, e.calls, d.total)

class Slotted:
    __slots__ = ("x",)
    @functools.cached_property
    def y(self):
        return 1
try:
    Slotted().y
except TypeError as err:
    print("TypeError", err)

cp = functools.cached_property(lambda self: 1)
try:
    cp.__get__(Data(1), Data)
except TypeError as err:
    print("TypeError", err)
try:
    class Two:
        a = functools.cached_property(lambda self: 1)
        b = a
except (TypeError, RuntimeError) as err:
    print(type(err).__name__, err)

class Sub(Data):
    pass
s = Sub(3)
print(s.total, s.calls)
class Lazy:
    @functools.cached_property
    def items(self):
        return []
l = Lazy()
l.items.append(1)
l.items.append(2)
print(l.items)
