import functools
def deco(tag):
    def wrap(f):
        @functools.wraps(f)
        def inner(*a, **k):
            return f"{tag}:{f(*a, **k)}"
        return inner
    return wrap
@deco("x")
def hello(n): "doc"; return n * 2
print(hello(3), hello.__name__, hello.__doc__, hello.__wrapped__(1))
class Reg:
    subs = []
    def __init_subclass__(cls, key=None, **kw):
        super().__init_subclass__(**kw)
        Reg.subs.append((cls.__name__, key))
class S1(Reg, key="one"): pass
class S2(Reg): pass
print(Reg.subs)
class Field:
    def __set_name__(self, owner, name): self.name = name
    def __get__(self, obj, typ=None): return self if obj is None else obj.__dict__.get(self.name, "unset")
    def __set__(self, obj, v): obj.__dict__[self.name] = v * 10
class M:
    f = Field()
    class Inner:
        z = 5
m = M(); print(m.f, M.f.name); m.f = 2; print(m.f, M.Inner.z, M.Inner().z)
class P:
    def __init__(self): self._x = 0
    @property
    def x(self): return self._x
    @x.setter
    def x(self, v): self._x = v
    @x.deleter
    def x(self): print("deleting"); del self._x
p = P(); p.x = 5; print(p.x); del p.x; print(hasattr(p, "_x"))
fs = [lambda i=i: i for i in range(3)]; print([f() for f in fs])
fs2 = [lambda: i for i in range(3)]; print([f() for f in fs2])
def gen():
    try:
        while True:
            v = yield
            print("got", v)
    except ValueError as e:
        print("thrown", e)
        yield "after-throw"
g = gen(); next(g); g.send(1); print(g.throw(ValueError("boom")))
def inner_gen():
    yield 1
    return "ret"
def outer_gen():
    r = yield from inner_gen()
    print("inner returned", r)
print(list(outer_gen()))
try:
    try:
        raise KeyError("a")
    except KeyError:
        raise ValueError("b")
except ValueError as e:
    print(repr(e.__context__), e.__cause__, e.__suppress_context__)
def order():
    try:
        print("try")
    except Exception:
        print("except")
    else:
        print("else")
    finally:
        print("finally")
order()
class CM:
    def __init__(self, n): self.n = n
    def __enter__(self): print("enter", self.n); return self.n
    def __exit__(self, *a): print("exit", self.n); return False
with CM(1) as a, CM(2) as b:
    print("body", a, b)
counter = 0
def bump():
    global counter
    counter += 1
bump(); bump(); print(counter)
def outer():
    total = 0
    for i in range(3):
        def add():
            nonlocal total
            total += i
        add()
    return total
print(outer())
class Base:
    def __repr__(self): return f"<{self.__class__.__name__}>"
class Child(Base): pass
print(Child(), [Child()], str(Child()), f"{Child()}", "%s" % Child())
print(type(Child()).__mro__, Child.__bases__, Child.__name__, Child.__qualname__)
class Ctr:
    count = 0
    def __init__(self): Ctr.count += 1; self.id = Ctr.count
a, b = Ctr(), Ctr(); print(a.id, b.id, Ctr.count, a.count)
class Slotted:
    __slots__ = ("a",)
s = Slotted(); s.a = 1
try:
    s.b = 2
except AttributeError as e:
    print("AE", e)
class Cmp:
    def __init__(self, v): self.v = v
    def __eq__(self, o): return self.v == o.v
print(Cmp(1) == Cmp(1), Cmp(1) != Cmp(2), Cmp(1) in [Cmp(1)])
try:
    hash(Cmp(1))
except TypeError as e:
    print(e)
