"""aiter() and anext() (with and without a default): results, the anext_awaitable, CPython's errors."""

class Tick:
    def __await__(self):
        yield "t"
def drive(aw):
    it = aw.__await__() if hasattr(aw, "__await__") else aw
    n = 0
    try:
        while True:
            it.send(None); n += 1
    except StopIteration as e:
        return ("value", e.value, n)
    except BaseException as e:
        return ("raised", type(e).__name__, str(e), n)
async def ag():
    await Tick()
    yield 1
    yield 2
class AIt:
    def __init__(self): self.i = 0
    def __aiter__(self): return self
    async def __anext__(self):
        await Tick()
        self.i += 1
        if self.i > 2: raise StopAsyncIteration
        return self.i
g = ag()
print(aiter(g) is g, type(anext(g)).__name__)
async def main():
    it = aiter(AIt())
    a = await anext(it)
    b = await anext(it, "dflt")
    c = await anext(it, "dflt")
    g = ag()
    d = [await anext(g), await anext(g), await anext(g, None)]
    try:
        await anext(g)
    except StopAsyncIteration:
        d.append("stop")
    return a, b, c, d
print(drive(main()))
aw = anext(ag(), 0)
print(type(aw).__name__)
for f in [lambda: aiter(1), lambda: anext(1), lambda: anext([1]), lambda: aiter(), lambda: anext(), lambda: aiter(AIt(), 1)]:
    try:
        f()
    except TypeError as e:
        print("TypeError", e)
class BadAiter:
    def __aiter__(self): return 1
try:
    aiter(BadAiter())
except TypeError as e:
    print("TypeError", e)
class W:
    def __anext__(self): return 5
print(anext(W()))
try:
    drive(anext(W(), 1))
    print(drive(anext(W(), 1)))
except TypeError as e:
    print("TypeError", e)
