"""Async comprehensions and await inside comprehensions (PEP 530); async generator expressions."""


class Tick:
    def __await__(self):
        yield "tick"


def drive(co):
    ticks = 0
    try:
        while True:
            co.send(None)
            ticks += 1
    except StopIteration as e:
        return ticks, e.value
    except BaseException as e:
        return ticks, f"{type(e).__name__}: {e}"


async def agen(n):
    for i in range(n):
        await Tick()
        yield i


async def double(x):
    await Tick()
    return 2 * x


async def main():
    a = [x async for x in agen(4)]
    b = {x % 2 async for x in agen(5)}
    c = {x: x * x async for x in agen(3) if x}
    d = [await double(x) for x in range(3)]
    e = [await double(x) async for x in agen(3) if await double(x) > 0]
    f = [(x, y) async for x in agen(3) for y in range(x)]
    g = [[y async for y in agen(x)] for x in range(3)]
    h = (x * 3 async for x in agen(3))
    hs = type(h).__name__
    hl = [v async for v in h]
    i = [v async for v in (await double(x) for x in range(2))]
    return a, b, c, d, e, f, g, hs, hl, i


print(drive(main()))


async def failing():
    return [1 // x async for x in agen(3)]


print(drive(failing()))


async def scoped():
    x = "outer"
    r = [x async for x in agen(2)]
    return r, x


print(drive(scoped()))
