"""Rich comparisons: reflection, NotImplemented, __eq__ without __hash__, __ne__ default, sorting by __lt__."""
class Money:
    def __init__(self, cents):
        self.cents = cents
    def __eq__(self, o):
        if not isinstance(o, Money):
            return NotImplemented
        return self.cents == o.cents
    def __lt__(self, o):
        if not isinstance(o, Money):
            return NotImplemented
        return self.cents < o.cents
    def __le__(self, o):
        return self == o or self < o
    def __repr__(self):
        return f"${self.cents / 100:.2f}"
a, b = Money(100), Money(250)
print(a == Money(100), a != b, a < b, b > a, a <= Money(100), b >= a, a == 100, a != "x", sorted([b, a, Money(5)]))
print(max(a, b), min([b, a]), a in [Money(100)], Money.__hash__ is None)
for bad in [lambda: a < 5, lambda: 5 > a, lambda: hash(a), lambda: {a}]:
    try:
        bad()
    except TypeError as e:
        print(type(e).__name__, e)
class Spy:
    def __init__(self, name):
        self.name = name
    def __eq__(self, o):
        print(f"{self.name}.__eq__")
        return NotImplemented
    def __lt__(self, o):
        print(f"{self.name}.__lt__")
        return NotImplemented
    def __gt__(self, o):
        print(f"{self.name}.__gt__")
        return NotImplemented
x, y = Spy("x"), Spy("y")
print(x == y)
try:
    x < y
except TypeError as e:
    print(type(e).__name__, e)
class Always:
    def __eq__(self, o):
        return True
    __hash__ = object.__hash__
print(Always() == 1, 1 == Always(), Always() != 1, [1, 2].count(Always()), Always() in [5])
class Weird:
    def __eq__(self, o):
        return "truthy string"
print(Weird() == 1, bool(Weird() == 1), Weird() != 1)
