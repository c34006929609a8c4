"""async def: coroutines driven by hand with send(None); return values arrive in StopIteration."""

class Ready:
    """An awaitable whose __await__ is a generator that suspends once, yielding a request."""
    def __init__(self, value):
        self.value = value
    def __await__(self):
        reply = yield ("need", self.value)
        return reply if reply is not None else self.value * 10

async def leaf(n):
    got = await Ready(n)
    return got + 1

async def middle():
    a = await leaf(1)
    b = await leaf(2)
    return [a, b]

def run(coro, replies=()):
    """Drive a coroutine to completion, answering each yielded request from replies."""
    replies = list(replies)
    value = None
    steps = []
    while True:
        try:
            req = coro.send(value)
        except StopIteration as stop:
            return steps, stop.value
        steps.append(req)
        value = replies.pop(0) if replies else None

print(run(middle()))
print(run(middle(), [100, 200]))

c = leaf(5)
print(type(c).__name__, c.__name__, c.__qualname__)
print(c.cr_running if hasattr(c, "cr_running") else "n/a")
first = c.send(None)
print("suspended with", first)
try:
    c.send(7)
except StopIteration as e:
    print("returned", e.value, e.args)

# sending a non-None value to a just-started coroutine is an error
c2 = leaf(1)
try:
    c2.send(42)
except TypeError as e:
    print(type(e).__name__, e)
c2.close()

# a coroutine that returns without awaiting anything
async def immediate():
    return "done"
try:
    immediate().send(None)
except StopIteration as e:
    print("immediate", e.value)

# reusing a finished coroutine
c3 = immediate()
try:
    c3.send(None)
except StopIteration:
    pass
try:
    c3.send(None)
except RuntimeError as e:
    print(type(e).__name__, e)
