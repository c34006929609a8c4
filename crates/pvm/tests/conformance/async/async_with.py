"""async with: __aenter__/__aexit__ awaited, suppression, exits on return/break/continue, errors."""


class Tick:
    def __await__(self):
        v = yield "tick"
        return v


def drive(co):
    """Run a coroutine by hand, counting the values it passes up to the driver."""
    ticks = 0
    try:
        while True:
            co.send(ticks or None)
            ticks += 1
    except StopIteration as e:
        return ("done", ticks, e.value)
    except BaseException as e:
        return ("raised", ticks, type(e).__name__, str(e))


class Res:
    def __init__(self, name, log, swallow=False):
        self.name, self.log, self.swallow = name, log, swallow

    async def __aenter__(self):
        got = await Tick()
        self.log.append(f"enter {self.name} {got}")
        return self.name

    async def __aexit__(self, et, ev, tb):
        await Tick()
        self.log.append(f"exit {self.name} {et.__name__ if et else None} {ev!r}")
        return self.swallow


async def basic(log):
    async with Res("a", log) as r:
        log.append(f"body {r}")
    async with Res("b", log, swallow=True):
        raise KeyError("k")
    async with Res("c", log), Res("d", log) as d:
        log.append(f"two {d}")
    async with Res("e", log, swallow=True) as e, Res("f", log):
        raise ValueError(e)
    return "ok"


async def early_return(log):
    async with Res("r", log):
        return "returned"


async def loops(log):
    out = []
    for i in range(4):
        async with Res(f"L{i}", log):
            if i == 1:
                continue
            if i == 3:
                break
            out.append(i)
    return out


async def escapes(log):
    try:
        async with Res("x", log):
            raise IndexError("out")
    except IndexError as e:
        log.append(f"caught {e!r} ctx={e.__context__!r}")
    return "after"


async def nested_handlers(log):
    try:
        raise KeyError("outer")
    except KeyError:
        async with Res("in-except", log, swallow=True):
            raise ValueError("inner")
        try:
            raise TypeError("t")
        except TypeError as t:
            log.append(f"context {t.__context__!r}")
    return "nested"


class ExitRaises:
    async def __aenter__(self):
        return 1

    async def __aexit__(self, *a):
        raise RuntimeError("from aexit")


async def exit_raises(log):
    try:
        async with ExitRaises():
            raise KeyError("body")
    except RuntimeError as e:
        log.append(f"{e!r} ctx={e.__context__!r}")
    try:
        async with ExitRaises():
            pass
    except RuntimeError as e:
        log.append(f"{e!r} ctx={e.__context__!r}")
    return "exit-raises"


class EnterRaises:
    async def __aenter__(self):
        raise LookupError("enter")

    async def __aexit__(self, *a):
        print("never")


async def enter_raises(log):
    try:
        async with EnterRaises():
            log.append("never")
    except LookupError as e:
        log.append(f"enter failed {e}")
    return "enter-raises"


for f in [basic, early_return, loops, escapes, nested_handlers, exit_raises, enter_raises]:
    log = []
    print(f.__name__, drive(f(log)))
    for line in log:
        print("   ", line)


class NoAexit:
    async def __aenter__(self):
        pass


class NoAenter:
    async def __aexit__(self, *a):
        pass


class SyncOnly:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        pass


class BadEnter:
    def __aenter__(self):
        return 1

    async def __aexit__(self, *a):
        pass


class BadExit:
    async def __aenter__(self):
        return 1

    def __aexit__(self, *a):
        return 2


class AwaitNonIter:
    def __await__(self):
        return 5


class BadAwait:
    def __aenter__(self):
        return AwaitNonIter()

    async def __aexit__(self, *a):
        pass


async def use(m):
    async with m:
        return "body ran"


for m in [1, None, NoAexit(), NoAenter(), SyncOnly(), BadEnter(), BadExit(), BadAwait()]:
    print(type(m).__name__, drive(use(m)))
