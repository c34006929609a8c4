"""except* inside generators and coroutines, nested except*, a new naked exception raised by a handler, else."""
def gen():
    try:
        yield 1
        raise ExceptionGroup("g", [ValueError(1), KeyError(2)])
    except* ValueError as e:
        yield f"handled {e.exceptions}"
    except* KeyError:
        yield "key"
    yield "end"
print(list(gen()))
try:
    try:
        raise ExceptionGroup("o", [ValueError(1)])
    except* ValueError:
        try:
            raise ExceptionGroup("i", [TypeError(2)])
        except* TypeError as t:
            print("inner", repr(t))
        raise KeyError("after")
except KeyError as e:
    print("out", repr(e), repr(e.__context__))
try:
    try:
        raise ValueError(1)
    except* (ValueError, ExceptionGroup):
        pass
except TypeError as e:
    print("TypeError", e)
def f():
    try:
        raise ExceptionGroup("x", [ValueError(1)])
    except* ValueError:
        pass
    else:
        return "else"
    return "after"
print(f())
try:
    raise ExceptionGroup("x", [ValueError(1), ValueError(2)])
except* ValueError as e:
    print(len(e.exceptions), e.message)
async def co():
    try:
        raise ExceptionGroup("a", [OSError(1)])
    except* OSError as e:
        r = repr(e)
    return r
c = co()
try:
    c.send(None)
except StopIteration as s:
    print(s.value)
