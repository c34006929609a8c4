"""divmod(): __divmod__/__rdivmod__ of instances, int/float subclasses, CPython's TypeError for everything else."""
class A:
    def __divmod__(self, o):
        return ("divmod", o)
    def __rdivmod__(self, o):
        return ("rdivmod", o)
print(divmod(A(), 3), divmod(3, A()), divmod(7, 2), divmod(-7.5, 2), divmod(True, 3))
class B:
    def __floordiv__(self, o): return 1
    def __mod__(self, o): return 2
for f in [lambda: divmod(B(), 1), lambda: divmod(1j, 2), lambda: divmod(object(), 2), lambda: divmod([], 2), lambda: divmod(1, "a")]:
    try:
        print(f())
    except TypeError as e:
        print("TypeError", e)
try:
    divmod(1.0, 0)
except ZeroDivisionError as e:
    print("ZeroDivisionError", e)
try:
    divmod(1, 0)
except ZeroDivisionError as e:
    print("ZeroDivisionError", e)
class I(int):
    pass
print(divmod(I(7), 2), divmod(7, I(2)), divmod(I(7), I(3)))
class F(float):
    pass
print(divmod(F(7.5), 2))
