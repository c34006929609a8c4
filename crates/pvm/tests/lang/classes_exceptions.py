class Base:
    cls_attr = "base"
    def __init__(self, v): self.v = v
    def who(self): return "Base"
    @classmethod
    def make(cls, v): return cls(v)
    @staticmethod
    def helper(x): return x * 2
    @property
    def double(self): return self.v * 2
    @double.setter
    def double(self, val): self.v = val // 2
    def __eq__(self, o): return isinstance(o, Base) and self.v == o.v
    def __hash__(self): return hash(self.v)
    def __lt__(self, o): return self.v < o.v
    def __repr__(self): return f"{type(self).__name__}({self.v})"
    def __len__(self): return self.v
    def __getitem__(self, i): return i * self.v
    def __contains__(self, x): return x == self.v
    def __call__(self, *a): return ("called", a)
    def __bool__(self): return self.v != 0
class A(Base):
    def who(self): return "A>" + super().who()
class B(Base):
    def who(self): return "B>" + super().who()
class C(A, B):
    def who(self): return "C>" + super().who()
print(C.__mro__)
print(C(1).who(), C.make(3), Base.helper(4), C(5).double)
o = C(2); o.double = 10; print(o.v, len(o), o[3], 5 in o, o(1, 2), bool(C(0)))
print(sorted([C(3), C(1), C(2)]), C(1) == C(1), {C(1): "x"}[C(1)], C(1) != C(2))
print(isinstance(o, Base), issubclass(C, B), C.cls_attr, hasattr(o, "zz"), getattr(o, "zz", "dflt"))
class Num:
    def __init__(self, n): self.n = n
    def __add__(self, o): return Num(self.n + (o.n if isinstance(o, Num) else o))
    __radd__ = __add__
    def __mul__(self, o): return Num(self.n * o)
    def __rmul__(self, o): return Num(self.n * o * 10)
    def __neg__(self): return Num(-self.n)
    def __iadd__(self, o): self.n += 100; return self
    def __repr__(self): return f"Num({self.n})"
n = Num(1); print(n + 1, 1 + n, n * 2, 2 * n, -n, sum([Num(1), Num(2)], Num(0)))
n += 1; print(n)
class It:
    def __init__(self, k): self.k = k
    def __iter__(self): return self
    def __next__(self):
        if self.k <= 0: raise StopIteration
        self.k -= 1
        return self.k
print(list(It(3)), [x for x in It(2)])
class Ctx:
    def __enter__(self): print("enter"); return self
    def __exit__(self, t, v, tb): print("exit", t.__name__ if t else None, v); return t is KeyError
with Ctx() as c: print("body")
with Ctx(): raise KeyError("k")
print("after")
class D:
    def __getattr__(self, name): return name.upper()
    def __setattr__(self, name, val): object.__setattr__(self, name, val * 2)
d = D(); d.x = 5; print(d.x, d.yy)
class Desc:
    def __get__(self, obj, typ): return "desc" if obj else "cls"
    def __set__(self, obj, v): obj.__dict__["_v"] = v
class H:
    a = Desc()
h = H(); h.a = 3; print(h.a, H.a, h._v)
class E(Exception):
    def __init__(self, msg, code): super().__init__(msg); self.code = code
try:
    try:
        raise E("bad", 7)
    except E as e:
        print("caught", e, e.code, e.args)
        raise ValueError("wrapped") from e
except ValueError as v:
    print(type(v.__cause__).__name__, v.__cause__)
def gen():
    try:
        x = yield 1
        print("got", x)
        yield x * 2
    finally:
        print("cleanup")
g = gen(); print(next(g)); print(g.send(21)); g.close()
def sub():
    r = yield from [1, 2]
    return "done"
def deleg():
    r = yield from sub()
    yield r
print(list(deleg()))
try:
    raise KeyError("x")
except (TypeError, KeyError) as e:
    print(repr(e), str(e))
try:
    1/0
except ZeroDivisionError as e:
    print(e)
finally:
    print("f")
def ret():
    try:
        return "try"
    finally:
        print("fin runs")
print(ret())
for i in range(3):
    try:
        if i == 1: continue
        if i == 2: break
    finally:
        print("loop fin", i)
else:
    print("no")
assert True
try:
    assert 1 == 2, "msg"
except AssertionError as e:
    print("AE", e)
