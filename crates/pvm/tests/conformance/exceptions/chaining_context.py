"""Exception chaining: implicit __context__, raise from (__cause__, __suppress_context__), from None."""
def show(e):
    print(type(e).__name__, repr(e), "| cause:", repr(e.__cause__), "| context:", repr(e.__context__), "| suppress:", e.__suppress_context__)
try:
    try:
        {}["k"]
    except KeyError:
        raise ValueError("while handling")
except ValueError as e:
    show(e)
try:
    try:
        1 / 0
    except ZeroDivisionError as z:
        raise RuntimeError("explicit") from z
except RuntimeError as e:
    show(e)
try:
    try:
        int("x")
    except ValueError:
        raise LookupError("hidden") from None
except LookupError as e:
    show(e)
try:
    raise TypeError("direct") from ValueError("made up")
except TypeError as e:
    show(e)
try:
    raise TypeError("class cause") from KeyError
except TypeError as e:
    show(e)
try:
    try:
        raise ValueError("inner")
    finally:
        raise KeyError("from finally")
except KeyError as e:
    show(e)
def nested():
    try:
        raise ValueError("a")
    except ValueError:
        try:
            raise TypeError("b")
        except TypeError:
            raise KeyError("c")
try:
    nested()
except KeyError as e:
    show(e)
    show(e.__context__)
try:
    raise ValueError("x") from 5
except TypeError as e:
    print(type(e).__name__, e)
e = ValueError("manual")
e.__cause__ = KeyError("set by hand")
print(e.__suppress_context__, repr(e.__cause__))
