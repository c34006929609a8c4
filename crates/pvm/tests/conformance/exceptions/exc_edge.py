"""Exceptions: chaining (from, from None, implicit), finally overriding, return in finally, custom
__init__/__str__, args, nested handlers, exception variables cleared, bare except, KeyError str."""


def chain():
    try:
        try:
            {}["k"]
        except KeyError as e:
            raise ValueError("wrapped") from e
    except ValueError as v:
        return repr(v.__cause__), repr(v.__context__), v.__suppress_context__


print(chain())


def hide():
    try:
        try:
            1 / 0
        except ZeroDivisionError:
            raise ValueError("hidden") from None
    except ValueError as v:
        return v.__cause__, repr(v.__context__), v.__suppress_context__


print(hide())


def override():
    try:
        try:
            raise KeyError("first")
        finally:
            raise ValueError("second")
    except ValueError as v:
        return repr(v), repr(v.__context__)


print(override())


def swallow():
    try:
        raise KeyError("lost")
    finally:
        return "finally wins"


print(swallow())


def loop_finally():
    out = []
    for i in range(3):
        try:
            if i == 1:
                continue
            out.append(i)
        finally:
            out.append(f"f{i}")
    return out


print(loop_finally())


class MyErr(Exception):
    def __init__(self, code, msg="default"):
        self.code = code
        self.msg = msg

    def __str__(self):
        return f"[{self.code}] {self.msg}"


try:
    raise MyErr(42)
except MyErr as e:
    print(e, e.args, repr(e), e.code)


class NoSuper(Exception):
    def __init__(self):
        pass


print(repr(NoSuper()), str(NoSuper()), NoSuper().args)
print(str(KeyError("k")), str(KeyError(1, 2)), str(KeyError()), repr(KeyError("k")), str(IndexError("i")))
try:
    raise TypeError
except (ValueError, TypeError) as e:
    print(type(e).__name__, e.args)
e = None
try:
    raise ValueError("x")
except ValueError as e:
    pass
try:
    print(e)
except NameError as ne:
    print("NameError", ne)


def nested():
    try:
        raise KeyError(1)
    except KeyError:
        try:
            raise IndexError(2)
        except IndexError as inner:
            return repr(inner.__context__)


print(nested())
try:
    try:
        raise ValueError("v")
    except:
        raise
except ValueError as v:
    print("bare except reraised", v)


class Custom(BaseException):
    pass


try:
    try:
        raise Custom()
    except Exception:
        print("never")
except BaseException as b:
    print("BaseException caught", type(b).__name__)
print(issubclass(KeyError, LookupError), issubclass(ExceptionGroup, Exception), isinstance(StopIteration(), Exception))
err = OSError(2, "No such file")
print(err.errno, err.strerror, str(err))
print(repr(ValueError("a", 1)), str(ValueError("a", 1)), str(ValueError()), repr(Exception()))
try:
    raise Exception("a") from 1
except TypeError as t:
    print("TypeError", t)
try:
    raise 5
except TypeError as t:
    print("TypeError", t)
