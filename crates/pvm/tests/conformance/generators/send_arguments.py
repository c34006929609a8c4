# `send` takes exactly one argument, `__next__` none, as CPython checks them; a wrong call
# leaves the generator as it was. A scheduler's `t.send(v)` loop (a direct path in the
# interpreter) sees the same values and the same StopIteration.
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
print(g.send(10), g.send(20), g.send(3))

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
    c.send(None)
except StopIteration as e:
    print("coroutine returned", e.value)
m = map(str, [1])
print(hasattr(m, "send"))
