# `send` takes exactly one argument, `__next__` and `close` none, as CPython checks them; a
# wrong call leaves the generator as it was. A scheduler's `t.send(v)` loop (a call site the
# method cache serves) sees the same values and the same StopIteration.
def avg():
    total = 0
    n = 0
    a = None
    while True:
        x = yield a
        total += x
        n += 1
        a = total // n

g = avg()
next(g)
for bad in [(), (1, 2)]:
    try:
        g.send(*bad)
    except TypeError as e:
        print("TypeError", e)
try:
    g.send(x=1)
except TypeError as e:
    print("TypeError", e)
try:
    g.__next__(1)
except TypeError as e:
    print("TypeError", e)
for call in [
    lambda: g.close(1),
    lambda: g.close(x=1),
    lambda: g.throw(),
    lambda: g.throw(ValueError, 1, None, 4),
]:
    try:
        call()
    except TypeError as e:
        print("TypeError", e)
print(g.send(10), g.send(20), g.send(3))
# Bound and called later, and through getattr: the same methods.
s = g.send
print(s(4), getattr(g, "send")(5))
print(g.close(), g.close())
try:
    g.send(1)
except StopIteration as e:
    print("closed: StopIteration", e.value)

def worker(n):
    got = []
    for i in range(n):
        got.append((yield i))
    return got

tasks = [worker(k) for k in range(1, 5)]
for t in tasks:
    next(t)
ready = list(tasks)
step = 0
while ready:
    still = []
    for t in ready:
        step += 1
        try:
            print("yield", t.send(step))
            still.append(t)
        except StopIteration as e:
            print("done", e.value)
    ready = still

async def co():
    return 1
c = co()
try:
    c.send()
except TypeError as e:
    print("TypeError", e)
try:
    c.close(1)
except TypeError as e:
    print("TypeError", e)
try:
    c.send(None)
except StopIteration as e:
    print("coroutine returned", e.value)
m = map(str, [1])
print(hasattr(m, "send"))
