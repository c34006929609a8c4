# The interpreter caches, per name of a code object, what the last instance class seen says
# about that name. Every way of changing those facts must be seen by the same code sites.

class A:
    def __init__(self, v):
        self.v = v
    def get(self):
        return ("A.get", self.v)

class B:
    def __init__(self, v):
        self.v = v
    def get(self):
        return ("B.get", self.v)

def read(o):
    return o.v

def call(o):
    return o.get()

def write(o, x):
    o.v = x

# One site, alternating classes.
objs = [A(1), B(2), A(3), B(4)]
print([read(o) for o in objs], [call(o) for o in objs])
for i, o in enumerate(objs):
    write(o, i * 10)
print([read(o) for o in objs])

# A data descriptor added to the class after the site has cached "instance dict wins".
a = A(5)
print(read(a))
A.v = property(lambda self: "property wins")
print(read(a), read(A.__new__(A)))
del A.v
print(read(a))

# A __setattr__ added after plain stores were cached; then removed.
def loud(self, name, value):
    print("setattr", name, value)
    object.__setattr__(self, name, value * 2)
write(a, 1)
A.__setattr__ = loud
write(a, 2)
print(read(a))
del A.__setattr__
write(a, 3)
print(read(a))

# A method replaced on the class; then shadowed by the instance dict; then unshadowed.
print(call(a))
A.get = lambda self: ("new A.get", self.v)
print(call(a))
a.get = lambda: "instance attribute"
print(call(a))
del a.get
print(call(a))

# Instance class reassignment between calls at one site.
a.__class__ = B
print(call(a), read(a))

# A method inherited, then overridden in the subclass after caching.
class Base:
    def who(self):
        return "Base"
class Sub(Base):
    pass
s = Sub()
def who(o):
    return o.who()
print(who(s))
Sub.who = lambda self: "Sub"
print(who(s))
Base.who = lambda self: "Base2"
print(who(s), who(Base()))
del Sub.who
print(who(s))

# __slots__ classes and plain classes at the same store site.
class S:
    __slots__ = ("v",)
s1 = S()
write(s1, 7)
write(A(0), 8)
print(read(s1))
try:
    s1.w = 1
except AttributeError as e:
    print("AttributeError", e)

# Attribute deleted from an instance after a cached read; position hints after reordering.
class P:
    pass
p = P()
p.a = 1
p.b = 2
p.v = 3
print(read(p))
del p.a
print(read(p))
p.a = 4
del p.v
try:
    read(p)
except AttributeError as e:
    print("AttributeError", e)
p.v = 9
print(read(p), vars(p))

# Many classes created and dropped at one site (a freed class must not be mistaken for a new one).
def make(n):
    class K:
        def get(self):
            return n
    return K()
print([call(make(i)) for i in range(5)])

# Globals: shadowing a builtin, deleting the global again, and a global added later.
def use_len():
    return len([1, 2, 3])
print(use_len())
len = lambda x: "shadowed"
print(use_len())
del len
print(use_len())
def use_late():
    return late
try:
    use_late()
except NameError as e:
    print("NameError", e)
late = "defined"
print(use_late())
del late
try:
    use_late()
except NameError as e:
    print("NameError", e)
