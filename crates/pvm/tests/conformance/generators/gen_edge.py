"""Generators: send/throw/close protocol details, yield from delegation with return values,
generator expressions closing, finally on close, gi_running, StopIteration conversion."""


def echo():
    received = []
    try:
        while True:
            x = yield len(received)
            received.append(x)
    except GeneratorExit:
        received.append("closed")
        raise
    finally:
        print("echo finally", received)


g = echo()
print(next(g), g.send("a"), g.send("b"))
g.close()
g.close()
try:
    next(g)
except StopIteration:
    print("exhausted after close")


def sub():
    x = yield 1
    y = yield x
    return (x, y)


def delegator():
    r = yield from sub()
    print("sub returned", r)
    r2 = yield from [10, 20]
    return r2


d = delegator()
print(next(d), d.send("X"), d.send("Y"), next(d))
try:
    next(d)
except StopIteration as e:
    print("StopIteration", e.value)


def thrower():
    try:
        yield 1
    except ValueError as e:
        yield f"caught {e}"
    yield "after"


t = thrower()
next(t)
print(t.throw(ValueError("v")), next(t))
try:
    t.throw(KeyError("k"))
except KeyError as e:
    print("propagated", e)


def bad():
    yield 1
    raise StopIteration("inside")


try:
    list(bad())
except RuntimeError as e:
    print("RuntimeError", e, repr(e.__cause__))


def running():
    yield g2.gi_running if False else "x"


g2 = running()
print(next(g2))


def stubborn():
    try:
        yield 1
    finally:
        yield 2


s = stubborn()
next(s)
try:
    s.close()
except RuntimeError as e:
    print("RuntimeError", e)


def counter(n):
    i = 0
    while i < n:
        cmd = yield i
        if cmd == "reset":
            i = 0
        else:
            i += 1


c = counter(5)
print([next(c), next(c), c.send("reset"), next(c)])
gen = (x * x for x in range(3))
print(next(gen), list(gen), list(gen))


def fib():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b


import itertools
print(list(itertools.islice(fib(), 10)), sum(itertools.takewhile(lambda x: x < 100, fib())))
