"""exc.__traceback__: tb_lineno/tb_next chains, identity, growth while propagating, the third
argument of __exit__/__aexit__, assigning __traceback__ and with_traceback()."""


def lines(tb):
    out = []
    while tb is not None:
        out.append(tb.tb_lineno)
        tb = tb.tb_next
    return out


def inner():
    raise ValueError("deep")


def middle():
    inner()


def outer():
    try:
        middle()
    except ValueError as e:
        print("in outer", lines(e.__traceback__))
        raise


try:
    outer()
except ValueError as e:
    tb = e.__traceback__
    print(type(tb).__name__, lines(tb), tb is e.__traceback__, tb.tb_next is e.__traceback__.tb_next)
    kept = e

e = ValueError("fresh")
print(e.__traceback__, lines(e.__traceback__))
try:
    raise e
except ValueError:
    first = e.__traceback__
    print(lines(first))
try:
    raise e
except ValueError:
    print(lines(e.__traceback__), e.__traceback__.tb_next is first)


class CM:
    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        print("exit", et and et.__name__, tb is (ev.__traceback__ if ev else None), lines(tb))
        return True


with CM():
    middle()
with CM():
    pass


def gen():
    yield 1
    raise KeyError("in gen")


try:
    for x in gen():
        pass
except KeyError as e:
    print("gen", lines(e.__traceback__))

e = kept
e.__traceback__ = None
print(e.__traceback__)
try:
    raise e
except ValueError:
    print("after reset", lines(e.__traceback__))

try:
    middle()
except ValueError as e:
    src = e.__traceback__
other = TypeError("moved")
print(other.with_traceback(src) is other, lines(other.__traceback__), other.__traceback__ is src)
print(other.with_traceback(None).__traceback__)
for bad in [lambda: setattr(other, "__traceback__", 5), lambda: other.with_traceback("x"), lambda: other.with_traceback()]:
    try:
        bad()
    except TypeError as e:
        print("TypeError", e)
try:
    type(src)()
except TypeError as e:
    print("TypeError")
try:
    src.tb_lineno = 3
except AttributeError:
    print("AttributeError")


class ACM:
    async def __aenter__(self):
        return self

    async def __aexit__(self, et, ev, tb):
        print("aexit", et.__name__, tb is ev.__traceback__, lines(tb))
        return True


async def main():
    async with ACM():
        middle()
    return "done"


co = main()
try:
    co.send(None)
except StopIteration as s:
    print(s.value)
