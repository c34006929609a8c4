# `obj.__class__ = C`: allowed between user classes of the same layout, with CPython's errors otherwise.
class A:
    def get(self): return "A"
class B:
    def get(self): return "B"
class I(int): pass
class S:
    __slots__ = ('x',)
class T:
    __slots__ = ('x',)
class E(Exception): pass
class F(Exception): pass
a = A()
a.__class__ = B
print(a.get(), type(a).__name__, a.__class__.__name__, '__class__' in vars(a))
for v in [3, I, S, int, object, A]:
    try:
        a.__class__ = v; print('ok', type(a).__name__)
    except TypeError as e: print(e)
s = S(); s.__class__ = T; print(type(s).__name__)
try:
    s.__class__ = A
except TypeError as e: print(e)
e = E("m"); e.__class__ = F; print(type(e).__name__, e.args, isinstance(e, F))
try:
    e.__class__ = A
except TypeError as x: print(x)
