"""A small round-robin event loop driving coroutines, async generators and async context managers
together: sleeps, queues, cancellation by throw(), aclose() of an abandoned async generator."""
from collections import deque


class Sleep:
    def __init__(self, n):
        self.n = n

    def __await__(self):
        for _ in range(self.n):
            yield "sleep"


class Cancelled(Exception):
    pass


class Loop:
    def __init__(self):
        self.ready = deque()
        self.log = []
        self.results = {}

    def spawn(self, name, co):
        self.ready.append((name, co, None))

    def run(self, cancel_after=None):
        steps = 0
        while self.ready:
            name, co, exc = self.ready.popleft()
            steps += 1
            try:
                if exc is not None:
                    co.throw(exc)
                else:
                    co.send(None)
            except StopIteration as e:
                self.results[name] = e.value
                continue
            except Exception as e:
                self.results[name] = f"{type(e).__name__}: {e}"
                continue
            if cancel_after and steps == cancel_after[1] and name == cancel_after[0]:
                self.ready.append((name, co, Cancelled("cancelled")))
            else:
                self.ready.append((name, co, None))
        return steps


class Lock:
    def __init__(self, loop):
        self.held, self.loop = None, loop

    async def __aenter__(self):
        while self.held:
            await Sleep(1)
        self.held = True
        return self

    async def __aexit__(self, et, ev, tb):
        self.held = False
        return False


async def ticker(n, log):
    try:
        for i in range(n):
            await Sleep(1)
            yield i
    finally:
        log.append("ticker closed")


loop = Loop()
lock = Lock(loop)


async def worker(name, n):
    total = 0
    async with lock:
        loop.log.append(f"{name} has lock")
        async for v in ticker(n, loop.log):
            total += v
        loop.log.append(f"{name} releases")
    return total


async def early_exit():
    t = ticker(10, loop.log)
    async for v in t:
        if v == 2:
            break
    await t.aclose()
    return "stopped at 2"


async def sleeper():
    try:
        await Sleep(100)
    except Cancelled as e:
        loop.log.append(f"sleeper {e}")
        return "was cancelled"


async def gather(*cos):
    return [await c for c in cos]


loop.spawn("w1", worker("w1", 3))
loop.spawn("w2", worker("w2", 2))
loop.spawn("early", early_exit())
loop.spawn("sleeper", sleeper())
loop.spawn("gather", gather(worker("g1", 1), early_exit()))
print(loop.run(cancel_after=("sleeper", 9)))
print(loop.results)
for line in loop.log:
    print(line)
