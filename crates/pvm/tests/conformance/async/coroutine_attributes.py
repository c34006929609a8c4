"""Coroutine/generator/async generator attributes: names, *_running, cr_await/gi_yieldfrom/ag_await,
*_suspended, cr_origin; reusing an awaited or closed coroutine."""
class Tick:
    def __await__(self):
        yield "t"
async def c():
    await Tick()
    return 1
co = c()
print(co.__name__, co.__qualname__, co.cr_running, co.cr_await, repr(co).split(" at ")[0].rstrip(">"))
co.send(None)
print(type(co.cr_await).__name__, co.cr_running)
try:
    co.send(None)
except StopIteration as e:
    print("done", e.value, co.cr_await)
try:
    co.send(None)
except RuntimeError as e:
    print("RuntimeError", e)
def g():
    yield 1
gen = g()
print(gen.gi_running, gen.gi_yieldfrom, gen.__qualname__)
async def ag():
    yield 1
a = ag()
print(a.ag_running, a.ag_await, a.__qualname__, repr(a).split(" at ")[0].rstrip(">"))
co2 = c()
co2.close()
try:
    co2.send(None)
except RuntimeError as e:
    print("RuntimeError", e)
async def awaits_twice():
    x = c()
    await x
    await x
try:
    awaits_twice().send(None)
except BaseException as e:
    print(type(e).__name__, e)
def outer():
    yield from inner_gen
inner_gen = g()
o = outer()
print(o.gi_yieldfrom, o.gi_suspended)
next(o)
print(o.gi_yieldfrom is inner_gen, o.gi_suspended, co.cr_suspended, co.cr_origin)
