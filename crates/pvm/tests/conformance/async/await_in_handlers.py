"""await inside except/finally: bare raise and __context__ after resuming, interleaved coroutines each
handling their own exception."""
class Tick:
    def __await__(self):
        yield "t"
def drive(co):
    n = 0
    try:
        while True:
            co.send(None)
            n += 1
    except StopIteration as e:
        return ("value", e.value, n)
    except BaseException as e:
        return ("raised", type(e).__name__, str(e), repr(e.__context__), n)
async def f1():
    try:
        raise KeyError("k")
    finally:
        await Tick()
async def f2():
    try:
        raise KeyError("k")
    except KeyError:
        await Tick()
        raise
async def f3():
    try:
        raise KeyError("k")
    except KeyError:
        await Tick()
        raise ValueError("v")
async def f4():
    try:
        try:
            raise KeyError("outer")
        except KeyError:
            await Tick()
            try:
                raise IndexError("inner")
            except IndexError:
                await Tick()
            raise
    except KeyError as e:
        return f"caught {e!r}"
async def f5():
    for i in range(3):
        try:
            if i == 1:
                raise ValueError(i)
        except ValueError:
            await Tick()
            continue
        finally:
            await Tick()
    return "loop done"
for f in (f1, f2, f3, f4, f5):
    print(f.__name__, drive(f()))
# interleaving two coroutines that each handle different exceptions
async def h(name, exc):
    try:
        raise exc
    except Exception:
        await Tick()
        await Tick()
        try:
            raise RuntimeError(name)
        except RuntimeError as r:
            return repr(r.__context__)
a, b = h("a", KeyError("ka")), h("b", ValueError("vb"))
res = {}
pending = [("a", a), ("b", b)]
while pending:
    name, co = pending.pop(0)
    try:
        co.send(None)
        pending.append((name, co))
    except StopIteration as e:
        res[name] = e.value
print(res)
