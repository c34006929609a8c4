class D:
    def __set_name__(self, o, n): raise KeyError('k')
try:
    class T:
        x = D()
except Exception as e: print(type(e).__name__, e, repr(e.__cause__), e.__context__ is e.__cause__, e.__suppress_context__)
from functools import cached_property
class P:
    @cached_property
    def v(self): return 3
try:
    class Two:
        a = P.__dict__["v"]
        b = a
except RuntimeError as e:
    print(e, type(e.__cause__).__name__, e.__cause__)
