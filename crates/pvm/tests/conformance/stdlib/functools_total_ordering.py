import functools

@functools.total_ordering
class V:
    def __init__(self, v):
        self.v = v
    def __eq__(self, o):
        if not isinstance(o, V):
            return NotImplemented
        return self.v == o.v
    def __lt__(self, o):
        if not isinstance(o, V):
            return NotImplemented
        return self.v < o.v

a, b, c = V(1), V(2), V(1)
print(a < b, a <= b, a > b, a >= b, a <= c, a >= c, b > a, b >= a)
print(sorted([V(3), V(1), V(2)], key=lambda x: x).__len__(), [x.v for x in sorted([V(3), V(1), V(2)])])
print(V.__gt__.__name__, V.__le__.__name__, "__lt__" in V.__dict__)
try:
    a < 1
except TypeError as e:
    print("TypeError", e)
try:
    a >= 1
except TypeError as e:
    print("TypeError", e)

@functools.total_ordering
class G:
    def __init__(self, v):
        self.v = v
    def __eq__(self, o):
        return self.v == o.v
    def __gt__(self, o):
        return self.v > o.v
print(G(1) < G(2), G(2) <= G(2), G(3) >= G(4), G(5) > G(4))

@functools.total_ordering
class LE:
    def __init__(self, v):
        self.v = v
    def __eq__(self, o):
        return self.v == o.v
    def __le__(self, o):
        return self.v <= o.v
print(LE(1) < LE(2), LE(2) < LE(2), LE(3) > LE(2), LE(2) >= LE(2))

@functools.total_ordering
class GE:
    def __init__(self, v):
        self.v = v
    def __eq__(self, o):
        return self.v == o.v
    def __ge__(self, o):
        return self.v >= o.v
print(GE(1) < GE(2), GE(2) <= GE(2), GE(3) > GE(2), GE(2) > GE(2))

@functools.total_ordering
class Both:
    def __init__(self, v):
        self.v = v
    def __lt__(self, o):
        return "lt"
    def __gt__(self, o):
        return "gt"
print(Both(1) < Both(2), Both(1) > Both(2), Both(1) <= Both(1), Both(1) >= Both(1))

class Base:
    def __lt__(self, o):
        return True
@functools.total_ordering
class Derived(Base):
    pass
print(Derived() >= Derived(), "__ge__" in Derived.__dict__)
try:
    @functools.total_ordering
    class Nothing:
        pass
except ValueError as e:
    print("ValueError", e)
