"""An exception raised after a generator resumes inside its except block has that block's exception as context."""

def g():
    try:
        raise KeyError(1)
    except KeyError:
        yield 1
        yield 2
    try:
        raise ValueError
    except ValueError as e:
        print("ctx", repr(e.__context__))
try:
    raise IndexError
except IndexError:
    it = g()
    next(it)
    next(it)
    list(it)
    try:
        raise TypeError
    except TypeError as e:
        print(repr(e.__context__))
