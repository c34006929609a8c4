"""complex with match class patterns, json, copy, f-string =, dunders called on instances, dir(), math TypeErrors."""
import json, copy
x = 1 + 2j
match x:
    case complex(real=1.0, imag=i):
        print("matched", i)
match 3j:
    case complex():
        print("is complex")
try:
    json.dumps(x)
except TypeError as e:
    print(e)
print(copy.copy(x), copy.deepcopy([x]), f"{x=}", f"{x!s:>12}")
print(complex.__new__(complex, 1, 2), type(x)(5), x.__class__.__name__, complex.__name__, complex.__qualname__, complex.__module__)
print(isinstance(1j, object), issubclass(complex, object), complex.__mro__, complex.__base__)
import math
for f in [lambda: math.sqrt(1j), lambda: math.isclose(1j, 1j), lambda: int("1j"), lambda: float("1j"), lambda: complex("1j", 2)]:
    try:
        print(f())
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
print(sum([1+1j]*3), max([1j, 2j], key=lambda c: c.imag), (1j).imag.is_integer(), hash(1j) == hash(complex(0, 1)))
print(repr(complex(1, 2)).__len__(), str(2j) + "!", bool(-0j), [1j] == [1j], (1j, 2) < (1j, 3))
d = {}
d[1j] = 1
d[complex(0, 1.0)] += 1
print(d)
print(1j.__hash__() == hash(1j), (1j).__eq__(1j), (1j).__ne__(2j), (2+0j).__bool__(), (3+4j).__abs__(), (1j).__neg__(), (1j).__format__(".1f"))
print(vars(type(1j)).keys() if False else sorted(n for n in dir(1j) if not n.startswith('_')))
print(complex.__repr__(1j), complex.__add__(1j, 1), complex.conjugate(2 - 1j), complex.__hash__(1j) == hash(1j), list.__hash__)
