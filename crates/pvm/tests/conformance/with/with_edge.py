"""with: multiple managers, exits in reverse order, exceptions in __enter__/__exit__ (context chaining),
return/break/continue through with, suppression, with in a closed generator."""

log = []


class CM:
    def __init__(self, name, swallow=False, fail_enter=False, fail_exit=False):
        self.name, self.swallow, self.fail_enter, self.fail_exit = name, swallow, fail_enter, fail_exit

    def __enter__(self):
        log.append(f"enter {self.name}")
        if self.fail_enter:
            raise RuntimeError(f"enter {self.name}")
        return self.name

    def __exit__(self, et, ev, tb):
        log.append(f"exit {self.name} {et.__name__ if et else None}")
        if self.fail_exit:
            raise KeyError(self.name)
        return self.swallow


def run(f):
    log.clear()
    try:
        r = f()
    except BaseException as e:
        r = f"{type(e).__name__}: {e} (context {e.__context__!r})"
    print(f.__name__, r, log)


def multi():
    with CM("a") as a, CM("b") as b, CM("c"):
        return a + b


def swallow_inner():
    with CM("a"), CM("b", swallow=True):
        raise ValueError("v")
    return "after"


def enter_fails():
    with CM("a"), CM("b", fail_enter=True), CM("c"):
        return "never"


def exit_fails():
    with CM("a", swallow=True), CM("b", fail_exit=True):
        raise ValueError("body")


def loop():
    out = []
    for i in range(4):
        with CM(str(i)):
            if i == 1:
                continue
            if i == 2:
                break
            out.append(i)
    return out


def in_finally():
    try:
        with CM("a"):
            return "from with"
    finally:
        log.append("finally")


def nested_gen():
    def g():
        with CM("gen"):
            yield 1
            yield 2
    it = g()
    v = next(it)
    it.close()
    return v


for f in [multi, swallow_inner, enter_fails, exit_fails, loop, in_finally, nested_gen]:
    run(f)
