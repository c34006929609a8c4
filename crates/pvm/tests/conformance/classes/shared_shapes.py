# Instances built alike share a shape (the name of their dict's keys and index), and a method
# call's proof that the instance does not shadow the method is remembered by it. Every way an
# instance can leave the shape, or come back to it, must still answer as CPython does.


class P:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def norm(self):
        return self.x * self.x + self.y * self.y

    def tag(self):
        return "method"


ps = [P(i, i + 1) for i in range(50)]
print(sum(p.norm() for p in ps))

# One instance shadows a method after the sites are warm.
ps[7].norm = lambda: -1
print([p.norm() for p in ps[5:10]])

# Built alike, then the shadow arrives in the same position for a later instance.
q = P(1, 2)
q.tag = lambda: "instance"
r = P(1, 2)
print(q.tag(), r.tag(), ps[0].tag())

# Built in another order: another shape, same answers.
s = P.__new__(P)
s.y = 4
s.x = 3
print(s.norm(), s.tag())

# Removal and re-insertion of an attribute.
t = P(5, 6)
del t.x
t.x = 7
print(t.norm(), t.tag(), list(t.__dict__))
del t.__dict__["y"]
t.y = 1
print(t.norm(), list(t.__dict__))

# A cleared dict, filled again in the class's order, and then with the method name.
u = P(2, 3)
u.__dict__.clear()
u.x = 1
u.y = 1
print(u.norm())
u.__dict__["norm"] = lambda: "cleared then shadowed"
print(u.norm(), ps[1].norm())

# A dict key that is not a str, and keys set through setattr with fresh strings.
v = P(1, 1)
v.__dict__[1] = "one"
print(v.norm(), sorted(k for k in v.__dict__ if isinstance(k, str)))
w = P(0, 0)
name = "".join(["ta", "g"])
setattr(w, name, lambda: "setattr")
print(w.tag(), P(0, 0).tag())


# Many attributes (past the largest shared shape) and a long attribute name.
class Wide:
    def __init__(self):
        for i in range(40):
            setattr(self, "a%d" % i, i)

    def total(self):
        return sum(getattr(self, "a%d" % i) for i in range(40))


ws = [Wide() for _ in range(3)]
print([x.total() for x in ws])
ws[2].total = lambda: "wide shadow"
print([x.total() for x in ws])
long_name = "attribute_" * 10
y = P(1, 1)
setattr(y, long_name, 5)
z = P(1, 1)
setattr(z, long_name, 6)
z.norm = lambda: "long then shadowed"
print(y.norm(), z.norm(), getattr(y, long_name), getattr(z, long_name))


# Subclasses whose __init__ fills the same names in the same order: one shape, two classes.
class Q(P):
    def norm(self):
        return "Q.norm"


a, b = P(1, 1), Q(1, 1)
print(a.norm(), b.norm(), a.norm(), b.norm())
b.norm = lambda: "b shadow"
print(a.norm(), b.norm(), Q(2, 2).norm())

# Copies keep their keys: a copy shadowed afterwards, the original not.
import copy

c1 = P(3, 4)
c2 = copy.copy(c1)
c2.norm = lambda: "copy shadow"
print(c1.norm(), c2.norm(), copy.deepcopy(c1).norm())

# vars() and __dict__ updates.
d = P(1, 2)
vars(d).update({"tag": lambda: "updated"})
print(d.tag(), P(1, 2).tag())
d.__dict__.pop("tag")
print(d.tag())
