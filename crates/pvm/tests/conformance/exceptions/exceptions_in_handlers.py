"""Errors inside except/else/finally blocks, handlers matching tuples and classes, exception objects after use."""
def risky(kind):
    try:
        if kind:
            raise kind("boom")
        return "ok"
    except (KeyError, IndexError) as e:
        return f"lookup {type(e).__name__}"
    except ArithmeticError as e:
        return f"math {e}"
    except Exception as e:
        return f"other {type(e).__name__}"
print([risky(k) for k in [None, KeyError, IndexError, ZeroDivisionError, OverflowError, TypeError]])
try:
    try:
        raise ValueError("first")
    except ValueError:
        raise TypeError("second")
except TypeError as e:
    print(e, "<-", e.__context__)
try:
    try:
        pass
    except Exception:
        pass
    else:
        raise KeyError("from else")
    finally:
        print("finally after else")
except KeyError as e:
    print("else raised", e)
saved = None
try:
    raise ValueError("keep me")
except ValueError as e:
    saved = e
print(type(saved).__name__, saved, saved.args)
errors = []
for v in ["1", "x", None, "3"]:
    try:
        errors.append(int(v))
    except (ValueError, TypeError) as e:
        errors.append(type(e).__name__)
print(errors)
def gen_handler():
    try:
        yield 1
        raise KeyError("in gen")
    except KeyError as e:
        yield f"handled {e}"
print(list(gen_handler()))
try:
    raise ExceptionGroup if False else ValueError("no groups needed")
except ValueError as e:
    print(e)
