"""ExceptionGroup/BaseExceptionGroup (PEP 654): construction and its errors, split/subgroup/derive, and
except*: partial matches, naked exceptions, re-raise, new exceptions raised by handlers, else/finally."""
eg = ExceptionGroup("msg", [ValueError(1), TypeError(2)])
print(type(eg).__name__, str(eg), repr(eg), eg.exceptions, eg.message, eg.args)
print(isinstance(eg, Exception), isinstance(eg, BaseExceptionGroup), ExceptionGroup.__mro__)
beg = BaseExceptionGroup("b", [ValueError(1)])
print(type(beg).__name__, type(BaseExceptionGroup("k", [KeyboardInterrupt()])).__name__)
m, r = eg.split(ValueError)
print(repr(m), repr(r), eg.subgroup(TypeError), eg.subgroup(KeyError), eg.split(lambda e: True)[0] is eg)
nested = ExceptionGroup("outer", [ValueError("a"), ExceptionGroup("inner", [TypeError("b"), ValueError("c")]), KeyError("d")])
print(repr(nested.split(ValueError)))
print(repr(nested.subgroup(lambda e: isinstance(e, ExceptionGroup) and e.message == "inner")))
print(repr(nested.split((KeyError, TypeError))))
for bad in [lambda: ExceptionGroup(1, [ValueError()]), lambda: ExceptionGroup("x", []), lambda: ExceptionGroup("x", [1]),
            lambda: ExceptionGroup("x", ValueError()), lambda: ExceptionGroup("x", [KeyboardInterrupt()]),
            lambda: eg.split(1), lambda: ExceptionGroup("x"), lambda: ExceptionGroup("x", {ValueError(): 1})]:
    try:
        bad()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)

def f():
    raise ExceptionGroup("many", [ValueError(1), TypeError(2), KeyError(3)])
try:
    f()
except* ValueError as e:
    print("VE", repr(e))
except* (TypeError, KeyError) as e:
    print("TE/KE", repr(e))
try:
    try:
        f()
    except* ValueError:
        print("handled VE")
except ExceptionGroup as e:
    print("rest", repr(e))
try:
    raise ValueError("naked")
except* ValueError as e:
    print("naked", repr(e), repr(e.exceptions[0]))
try:
    try:
        raise KeyError("naked2")
    except* ValueError:
        print("never")
except KeyError as e:
    print("naked passthrough", repr(e))
try:
    try:
        raise ValueError("re")
    except* ValueError:
        raise
except ExceptionGroup as e:
    print("reraised naked", repr(e))
try:
    try:
        f()
    except* ValueError:
        raise
    except* TypeError:
        raise RuntimeError("new")
except BaseException as e:
    print("mixed", repr(e))
    print([repr(x) for x in e.exceptions])
try:
    try:
        f()
    except* ExceptionGroup:
        pass
except TypeError as e:
    print("TypeError", e)
try:
    f()
except* BaseException as e:
    print("all", repr(e))
else:
    print("no")
finally:
    print("finally")
def g():
    for i in range(3):
        try:
            raise ValueError(i)
        except* ValueError:
            for j in range(2):
                if j:
                    break
            print("i", i)
g()
class MyEG(ExceptionGroup):
    def derive(self, excs):
        return MyEG(self.message + "!", excs)
try:
    raise MyEG("mine", [ValueError(1), KeyError(2)])
except* ValueError as e:
    print(type(e).__name__, repr(e))
except* KeyError as e:
    print(type(e).__name__, repr(e))
e = ExceptionGroup("x", [ValueError(1)])
e.__cause__ = KeyError("c")
m = e.subgroup(ValueError)
print(m is e, repr(m.__cause__))
m = e.split(lambda x: not isinstance(x, ExceptionGroup))[0]
print(m is e, repr(m.__cause__), m.__traceback__)
