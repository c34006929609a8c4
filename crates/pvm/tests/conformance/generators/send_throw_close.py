"""Generator send/throw/close: values in and out, exceptions handled inside, GeneratorExit, state after close."""
def averager():
    total = count = 0
    avg = None
    while True:
        try:
            x = yield avg
        except ValueError as e:
            print("averager ignored", e)
            continue
        if x is None:
            break
        total += x
        count += 1
        avg = total / count
    return (count, avg)
g = averager()
print(next(g), g.send(10), g.send(20), g.throw(ValueError("bad")), g.send(30))
try:
    g.send(None)
except StopIteration as e:
    print("returned", e.value)
def cleanup():
    try:
        yield 1
        yield 2
    except GeneratorExit:
        print("got GeneratorExit")
        raise
    finally:
        print("finally in generator")
c = cleanup()
next(c)
c.close()
c.close()
print(list(c))
def stubborn():
    try:
        yield 1
    except GeneratorExit:
        yield "refuse"
s = stubborn()
next(s)
try:
    s.close()
except RuntimeError as e:
    print(type(e).__name__, e)
def unhandled():
    yield 1
u = unhandled()
next(u)
try:
    u.throw(KeyError("k"))
except KeyError as e:
    print("propagated", repr(e))
print(list(u))
n = unhandled()
try:
    n.throw(TypeError, TypeError("unstarted"))
except TypeError as e:
    print("throw before start:", e)
def returns():
    yield 1
    return "ret"
r = returns()
print(next(r))
try:
    next(r)
except StopIteration as e:
    print(e.value, e.args)
