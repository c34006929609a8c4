# The interpreter remembers, per name of a code object, the last dict that name was missing
# from (named by a stamp that every change of the dict's keys replaces): a builtin name missing
# from the module globals, a method name missing from the instance dict. Every way of adding
# the name, or of changing the dict's keys, must be seen by the same code sites.

def size(xs):
    return len(xs)

def absval(x):
    return abs(x)

print(size([1, 2, 3]), size("ab"), absval(-4))

# A global now shadows the builtin, then goes away again.
len = lambda xs: "shadowed"
print(size([1, 2, 3]))
del len
print(size([1, 2, 3]))

# Other globals come and go (the table grows and is rebuilt): the builtin is still found.
g0 = 0
g1 = 1
g2 = 2
g3 = 3
g4 = 4
g5 = 5
g6 = 6
g7 = 7
g8 = 8
g9 = 9
g10 = 10
g11 = 11
g12 = 12
g13 = 13
g14 = 14
g15 = 15
g16 = 16
g17 = 17
g18 = 18
g19 = 19
g20 = 20
g21 = 21
g22 = 22
g23 = 23
g24 = 24
g25 = 25
g26 = 26
g27 = 27
g28 = 28
g29 = 29
g30 = 30
g31 = 31
g32 = 32
g33 = 33
g34 = 34
g35 = 35
g36 = 36
g37 = 37
g38 = 38
g39 = 39
print(size([1]), absval(-2))
del g0
del g1
del g2
del g3
del g4
del g5
del g6
del g7
del g8
del g9
del g10
del g11
del g12
del g13
del g14
del g15
del g16
del g17
del g18
del g19
del g20
del g21
del g22
del g23
del g24
del g25
del g26
del g27
del g28
del g29
del g30
del g31
del g32
del g33
del g34
del g35
del g36
del g37
del g38
del g39
print(size([1, 2]), absval(-3))
def mine(x):
    return "mine"


abs = mine
print(absval(-5))
del abs
print(absval(-6))


class C:
    def __init__(self, v):
        self.v = v

    def m(self):
        return ("C.m", self.v)


def call(o):
    return o.m()


a, b = C(1), C(2)
print(call(a), call(b), call(a))
# An instance attribute shadows the method on one instance only.
a.m = lambda: "a's own"
print(call(a), call(b), call(a))
del a.m
print(call(a), call(b))
# Attributes added and removed change the instance dict's keys, never the method found.
for i in range(20):
    setattr(b, "x%d" % i, i)
print(call(b))
for i in range(20):
    delattr(b, "x%d" % i)
print(call(b))
b.__dict__["m"] = lambda: "b via __dict__"
print(call(b), call(a))
b.__dict__.clear()
b.v = 7
print(call(b))
