names = [ValueError, TypeError, KeyError, IndexError, ZeroDivisionError, OverflowError, AttributeError,
         NameError, UnboundLocalError, RecursionError, NotImplementedError, StopIteration, AssertionError,
         UnicodeDecodeError, MemoryError, LookupError, ArithmeticError, RuntimeError]
for cls in names:
    print(cls.__name__, [b.__name__ for b in cls.__mro__[1:]])
