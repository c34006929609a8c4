"""async with and async for driven by hand: __aenter__/__aexit__, __aiter__/__anext__, StopAsyncIteration."""

class Tick:
    def __await__(self):
        yield "tick"

class Resource:
    def __init__(self, log):
        self.log = log
    async def __aenter__(self):
        self.log.append("enter")
        await Tick()
        return self
    async def __aexit__(self, et, ev, tb):
        self.log.append(f"exit {et.__name__ if et else None}")
        return et is KeyError

class Counter:
    def __init__(self, n):
        self.i, self.n = 0, n
    def __aiter__(self):
        return self
    async def __anext__(self):
        if self.i >= self.n:
            raise StopAsyncIteration
        self.i += 1
        await Tick()
        return self.i * 10

async def main(log):
    async with Resource(log) as r:
        log.append(f"body {type(r).__name__}")
    async with Resource(log):
        raise KeyError("swallowed")
    got = []
    async for v in Counter(3):
        got.append(v)
    log.append(got)
    try:
        async with Resource(log):
            raise ValueError("escapes")
    except ValueError as e:
        log.append(f"caught {e}")
    return "main done"

def drive(co):
    ticks = 0
    while True:
        try:
            co.send(None)
            ticks += 1
        except StopIteration as e:
            return ticks, e.value

log = []
print(drive(main(log)))
for line in log:
    print(line)
