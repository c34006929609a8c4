# A function's __doc__, __module__ and __annotations__ are fields, not __dict__ entries.
def f(x: int, *, y: "str" = "a") -> bool:
    "the doc"
    return True


def g():
    pass


print(f.__dict__, f.__doc__, f.__module__, f.__annotations__)
print(g.__dict__, g.__doc__, g.__module__, g.__annotations__, g.__dict__)
f.__doc__ = 5
print(f.__doc__, f.__dict__)
del f.__doc__
print(f.__doc__)
f.__module__ = 3
print(f.__module__, f.__dict__)
del f.__module__
print(f.__module__)
try:
    f.__annotations__ = 5
except TypeError as e:
    print("TypeError", e)
del f.__annotations__
print(f.__annotations__)
del f.__annotations__
del f.__annotations__
f.__annotations__ = {"a": 1}
print(f.__annotations__, f.__dict__)
f.__dict__["__doc__"] = "shadow"
print(f.__doc__, f.__dict__)
f.x = 1
print(sorted(f.__dict__))
print(vars(g))
# Closures made in a loop each get their own fields.
fs = []
for i in range(3):
    def h(a=i):
        "h doc"
        return a
    fs.append(h)
fs[0].__doc__ = "changed"
print([k.__doc__ for k in fs], [k() for k in fs])
lam = lambda: 0
print(lam.__doc__, lam.__module__, lam.__dict__)


class C:
    def m(self):
        "m doc"
    @staticmethod
    def s():
        pass


print(C.m.__doc__, C.m.__module__, C().m.__doc__, C.s.__module__)
import functools


@functools.wraps(f)
def w():
    pass


print(w.__doc__, w.__module__, w.__annotations__, sorted(w.__dict__))
for n in ("__name__", "__qualname__"):
    try:
        setattr(g, n, 3)
    except TypeError as e:
        print("TypeError", e)
    try:
        delattr(g, n)
    except TypeError as e:
        print("TypeError", e)
g.__name__ = "renamed"
print(g.__name__, g.__qualname__, g.__dict__, repr(g).startswith("<function g"))
g.__qualname__ = "Q.renamed"
print(g.__qualname__, repr(g).startswith("<function Q.renamed"), g.__dict__)
