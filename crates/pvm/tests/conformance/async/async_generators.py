"""Async generators (PEP 525): __anext__, asend, athrow, aclose, async for over them."""


class Tick:
    def __await__(self):
        v = yield "tick"
        return v


def drive(aw):
    """Drive an awaitable by hand; report what it passed up and how it ended."""
    passed = []
    try:
        it = aw.__await__() if hasattr(aw, "__await__") else aw
        v = None
        while True:
            passed.append(it.send(v))
            v = len(passed)
    except StopIteration as e:
        return ("value", e.value, passed)
    except BaseException as e:
        return ("raised", type(e).__name__, str(e), passed)


async def counter(n):
    for i in range(n):
        got = await Tick()
        yield i * 10 + got


async def echo():
    log = []
    try:
        x = yield "first"
        while True:
            log.append(x)
            x = yield f"echo {x}"
    except KeyError as e:
        yield f"caught {e!r} after {log}"
    finally:
        print("   echo finally", log)


g = counter(2)
print(type(g).__name__, g.__name__, repr(g).startswith("<async_generator object counter"))
print(g.__aiter__() is g, type(g.__anext__()).__name__, type(g.athrow(ValueError)).__name__)
print(drive(g.__anext__()))
print(drive(g.__anext__()))
print(drive(g.__anext__()))
print(drive(g.__anext__()))

e = echo()
print(drive(e.asend(None)))
print(drive(e.asend(1)))
print(drive(e.asend("two")))
print(drive(e.athrow(KeyError("k"))))
print(drive(e.aclose()))
print(drive(e.__anext__()))
print(drive(e.aclose()))

# aclose runs finally blocks; a generator that yields on GeneratorExit is an error
async def guarded():
    try:
        yield 1
        yield 2
    finally:
        print("   guarded finally")


g = guarded()
print(drive(g.__anext__()))
print(drive(g.aclose()))
print(drive(g.__anext__()))


async def stubborn():
    try:
        yield 1
    except GeneratorExit:
        yield "no"


g = stubborn()
print(drive(g.__anext__()))
print(drive(g.aclose()))

# aclose of an unstarted generator, athrow into an unstarted one
print(drive(counter(3).aclose()))
print(drive(counter(3).athrow(ValueError("early"))))
print(drive(counter(3).athrow(ValueError, "legacy")))

# awaitables cannot be reused
g = counter(5)
aw = g.__anext__()
print(drive(aw))
print(drive(aw))
aw = g.aclose()
print(drive(aw))
print(drive(aw))

# sending a non-None value to a just-started generator
print(drive(counter(1).asend(5)))


async def raises_stop():
    yield 1
    raise StopAsyncIteration


async def raises_stopiter():
    yield 1
    raise StopIteration


for f in (raises_stop, raises_stopiter):
    g = f()
    print(drive(g.__anext__()), drive(g.__anext__()))


# another step while one is suspended in an await
g = counter(3)
a1 = g.__anext__()
print(a1.send(None))
print(drive(g.__anext__()))
print(drive(g.aclose()))
print(drive(g.athrow(KeyError)))
print(drive(a1))


async def consume():
    out = []
    async for v in counter(3):
        out.append(v)
    g = echo()
    out.append(await g.asend(None))
    out.append(await g.asend("x"))
    out.append(await g.athrow(KeyError("z")))
    await g.aclose()
    g = guarded()
    async for v in g:
        out.append(v)
        break
    await g.aclose()
    return out


print(drive(consume()))


async def empty():
    return
    yield


async def use_empty():
    n = 0
    async for _ in empty():
        n += 1
    else:
        return f"empty loop {n}"


print(drive(use_empty()))

try:
    for x in counter(2):
        pass
except TypeError as e:
    print("TypeError", e)
for it in (counter(2), consume()):
    try:
        next(it)
    except TypeError as e:
        print("TypeError", e)
    try:
        iter(it)
    except TypeError as e:
        print("TypeError", e)
    it.aclose() if hasattr(it, "aclose") else it.close()
