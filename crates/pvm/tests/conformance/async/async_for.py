"""async for: __aiter__/__anext__, StopAsyncIteration, else, break/continue, errors."""


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
        return ("done", ticks, e.value)
    except BaseException as e:
        return ("raised", ticks, type(e).__name__, str(e))


class ARange:
    def __init__(self, n, fail_at=None):
        self.i, self.n, self.fail_at = 0, n, fail_at

    def __aiter__(self):
        return self

    async def __anext__(self):
        await Tick()
        if self.i == self.fail_at:
            raise ValueError(f"fail at {self.i}")
        if self.i >= self.n:
            raise StopAsyncIteration
        self.i += 1
        return self.i - 1


async def basic():
    out = []
    async for x in ARange(3):
        out.append(x)
    else:
        out.append("else")
    async for x in ARange(0):
        out.append("never")
    else:
        out.append("empty-else")
    return out


async def brk():
    out = []
    async for x in ARange(10):
        if x % 2:
            continue
        if x > 5:
            break
        out.append(x)
    else:
        out.append("no")
    return out


async def nested():
    out = []
    async for a in ARange(3):
        async for b in ARange(3):
            if b > a:
                break
            out.append((a, b))
    return out


async def unpack():
    class Pairs:
        def __init__(self):
            self.items = [(1, "a"), (2, "b")]

        def __aiter__(self):
            return self

        async def __anext__(self):
            if not self.items:
                raise StopAsyncIteration
            return self.items.pop(0)

    out = {}
    async for k, v in Pairs():
        out[k] = v
    return out


async def fails():
    out = []
    try:
        async for x in ARange(5, fail_at=2):
            out.append(x)
    except ValueError as e:
        out.append(repr(e))
    return out


async def ret_inside():
    async for x in ARange(5):
        if x == 2:
            return f"returned at {x}"


async def body_raises_stop():
    try:
        async for x in ARange(3):
            raise StopAsyncIteration("from body")
    except StopAsyncIteration as e:
        return f"body's StopAsyncIteration escapes: {e}"


async def in_try_finally():
    out = []
    try:
        async for x in ARange(2):
            try:
                out.append(x)
            finally:
                out.append("f")
    finally:
        out.append("outer")
    return out


for f in [basic, brk, nested, unpack, fails, ret_inside, body_raises_stop, in_try_finally]:
    print(f.__name__, drive(f()))


class NoAnext:
    def __aiter__(self):
        return 1


class AnextNotAwaitable:
    def __aiter__(self):
        return self

    def __anext__(self):
        return 5


class SyncIter:
    def __iter__(self):
        return iter([1])


async def use(m):
    async for x in m:
        return x


for m in [1, [1, 2], SyncIter(), NoAnext(), AnextNotAwaitable()]:
    print(type(m).__name__, drive(use(m)))
