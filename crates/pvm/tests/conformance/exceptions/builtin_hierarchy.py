"""The builtin exception hierarchy, typical triggers for each class, and exception args/str/repr."""
names = ["ArithmeticError", "ZeroDivisionError", "OverflowError", "LookupError", "IndexError", "KeyError",
         "ValueError", "UnicodeError", "UnicodeDecodeError", "TypeError", "AttributeError", "NameError",
         "UnboundLocalError", "RuntimeError", "RecursionError", "NotImplementedError", "StopIteration",
         "AssertionError", "ImportError", "ModuleNotFoundError", "OSError", "FileNotFoundError",
         "MemoryError", "GeneratorExit", "KeyboardInterrupt", "SystemExit", "Exception", "BaseException"]
classes = [ArithmeticError, ZeroDivisionError, OverflowError, LookupError, IndexError, KeyError,
           ValueError, UnicodeError, UnicodeDecodeError, TypeError, AttributeError, NameError,
           UnboundLocalError, RuntimeError, RecursionError, NotImplementedError, StopIteration,
           AssertionError, ImportError, ModuleNotFoundError, OSError, FileNotFoundError,
           MemoryError, GeneratorExit, KeyboardInterrupt, SystemExit, Exception, BaseException]
for n, c in zip(names, classes):
    print(n, "->", c.__mro__[1].__name__, issubclass(c, Exception))
def trigger(label, fn):
    try:
        fn()
    except BaseException as e:
        print(label, type(e).__name__, repr(str(e)), len(e.args))
trigger("zero", lambda: 1 % 0)
trigger("overflow", lambda: 2.0 ** 5000)
trigger("index", lambda: [][0])
trigger("key", lambda: {}[("a", 1)])
trigger("attr", lambda: (1).nope)
trigger("name", lambda: undefined_name)
trigger("type", lambda: len(5))
trigger("value", lambda: int("z"))
trigger("stop", lambda: next(iter(())))
trigger("assert", lambda: exec_assert())
trigger("import", lambda: __import_helper())
def exec_assert():
    assert 1 == 2, "math is broken"
def __import_helper():
    import no_such_module_here
def recurse(n):
    return recurse(n + 1)
trigger("recursion", lambda: recurse(0))
trigger("notimpl", lambda: (_ for _ in ()).throw(NotImplementedError("todo")))
trigger("runtime", lambda: (_ for _ in ()).throw(RuntimeError))
for e in [KeyError("k"), KeyError(), KeyError(1, 2), IndexError("i"), OSError("plain"), StopIteration(5), SystemExit(3)]:
    print(repr(e), str(e), e.args)
print(StopIteration(5).value, SystemExit(3).code, OSError(13, "denied").strerror)
