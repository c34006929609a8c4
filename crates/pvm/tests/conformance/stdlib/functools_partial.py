import functools

def f(a, b, c=0, *rest, **kw):
    return (a, b, c, rest, sorted(kw.items()))

p = functools.partial(f, 1)
print(p(2))
print(p(2, 3, 4, x=5))
q = functools.partial(p, 2, c=9)
print(q())
print(q(c=7, y=1))
print(q.func is f, q.args, q.keywords)
print(repr(functools.partial(max, 1, 2, key=abs)))
print(repr(functools.partial(len)))
class MyPartial(functools.partial):
    pass
m = MyPartial(max, 3)
print(repr(m), m(7), type(m).__name__)
mm = functools.partial(m, 4)
print(mm.func is m, mm.args)
print(isinstance(p, functools.partial), callable(p))
for bad in [(), (3,), ("x", 1)]:
    try:
        functools.partial(*bad)
    except TypeError as e:
        print("TypeError", e)
p.attr = 5
print(p.attr)
base2 = functools.partial(int, base=2)
print(base2("1011"), base2("11", base=10))
class A:
    def __init__(self):
        self.v = 10
    def add(self, x, y):
        return self.v + x + y
    add5 = functools.partialmethod(add, 5)
    @classmethod
    def cm(cls, a, b):
        return (cls.__name__, a, b)
    cm1 = functools.partialmethod(cm, 1)
a = A()
print(a.add5(1), A.add5(a, 2), a.cm1(2), A.cm1(3))
