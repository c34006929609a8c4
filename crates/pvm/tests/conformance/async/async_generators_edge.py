"""Async generators: async with and await in finally during aclose/athrow, values sent into awaits,
throw/close on a pending step, handlers across yields, methods returning async generators."""

class Tick:
    def __await__(self):
        v = yield "tick"
        return v

def drive(aw, sends=()):
    passed = []
    it = aw.__await__() if hasattr(aw, "__await__") else aw
    sends = list(sends)
    v = None
    try:
        while True:
            passed.append(it.send(v))
            v = sends.pop(0) if sends else None
    except StopIteration as e:
        return ("value", e.value, passed)
    except BaseException as e:
        return ("raised", type(e).__name__, str(e), passed)

class ACM:
    def __init__(self, log): self.log = log
    async def __aenter__(self):
        await Tick()
        self.log.append("enter")
    async def __aexit__(self, et, ev, tb):
        await Tick()
        self.log.append(f"exit {et.__name__ if et else None}")

log = []
async def agen():
    async with ACM(log):
        try:
            yield 1
            yield 2
        finally:
            await Tick()
            log.append("finally awaited")

g = agen()
print(drive(g.__anext__()))
print(drive(g.aclose()))
print(log)
log.clear()
g = agen()
print(drive(g.__anext__()))
print(drive(g.athrow(ValueError("boom"))))
print(log)

# values sent into an await inside the async generator
async def echo_awaits():
    got = await Tick()
    yield got
    got2 = await Tick()
    yield got2
g = echo_awaits()
print(drive(g.__anext__(), sends=["A"]))
print(drive(g.__anext__(), sends=["B"]))
# throw into step while suspended in await
g = echo_awaits()
step = g.__anext__()
print(step.send(None))
try:
    step.throw(KeyError("into await"))
except KeyError as e:
    print("KeyError", e)
print(drive(g.__anext__()))
# close() on a pending step
g = echo_awaits()
step = g.__anext__()
step.send(None)
step.close()
print(drive(step))
# async gen yielding inside try/except catching exceptions from athrow
async def catcher():
    while True:
        try:
            yield "ready"
        except ValueError as e:
            yield f"caught {e}"
g = catcher()
print(drive(g.asend(None)), drive(g.athrow(ValueError("x"))), drive(g.asend(None)), drive(g.aclose()))
# exception context inside async gen
async def ctx():
    try:
        raise KeyError("k")
    except KeyError:
        yield 1
        try:
            raise ValueError("v")
        except ValueError as e:
            yield repr(e.__context__)
g = ctx()
print(drive(g.__anext__()), drive(g.__anext__()))
# async generator as a method, with closure and qualname
class Stream:
    def __init__(self, n): self.n = n
    async def items(self):
        for i in range(self.n):
            yield i
    def __aiter__(self):
        return self.items()
async def use():
    return [x async for x in Stream(3)]
print(drive(use()))
print(Stream(1).items().__name__)
# return value of await of an async-gen-step inside coroutine
async def first():
    return await Stream(2).items().__anext__()
print(drive(first()))
