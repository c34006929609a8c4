"""await chains: exceptions propagate through awaits, throw() and close() reach the innermost await."""

class Suspend:
    def __await__(self):
        got = yield "suspended"
        return got

async def inner(tag):
    try:
        v = await Suspend()
        return f"{tag}:{v}"
    except KeyError as e:
        return f"{tag} handled KeyError {e}"
    finally:
        print("inner finally", tag)

async def outer():
    r1 = await inner("a")
    r2 = await inner("b")
    return r1, r2

co = outer()
print(co.send(None))
print(co.send("x"))
try:
    co.throw(KeyError("boom"))
except StopIteration as e:
    print("result", e.value)

# an exception the chain does not handle comes out of throw()
co = outer()
co.send(None)
try:
    co.throw(ValueError("bad"))
except ValueError as e:
    print("propagated", type(e).__name__, e)

# close() runs finally blocks in the suspended chain
co = outer()
co.send(None)
co.close()
print("closed")

# exceptions raised inside a coroutine body
async def failing():
    await Suspend()
    raise ZeroDivisionError("inside coroutine")

co = failing()
co.send(None)
try:
    co.send(None)
except ZeroDivisionError as e:
    print(type(e).__name__, e)

# awaiting something that is not awaitable
async def bad():
    await 5
try:
    bad().send(None)
except TypeError as e:
    print(type(e).__name__, e)

class BadAwait:
    def __await__(self):
        return 3
async def bad2():
    await BadAwait()
try:
    bad2().send(None)
except TypeError as e:
    print(type(e).__name__, e)
