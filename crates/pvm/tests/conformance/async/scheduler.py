"""A tiny round-robin scheduler driving several coroutines by hand, deterministically."""

class Sleep:
    def __init__(self, ticks):
        self.ticks = ticks
    def __await__(self):
        yield self.ticks

async def worker(name, n, log):
    total = 0
    for i in range(n):
        log.append(f"{name}{i}")
        total += i
        await Sleep(1)
    return f"{name} total {total}"

async def parent(log):
    log.append("parent start")
    r = await worker("p", 2, log)
    log.append(r)
    return r.upper()

def run_all(coros):
    ready = list(enumerate(coros))
    results = {}
    clock = 0
    while ready:
        idx, co = ready.pop(0)
        try:
            ticks = co.send(None)
        except StopIteration as e:
            results[idx] = (clock, e.value)
            continue
        clock += ticks
        ready.append((idx, co))
    return results

log = []
res = run_all([worker("a", 3, log), worker("b", 1, log), parent(log)])
print(log)
for k in sorted(res):
    print(k, res[k])

# async functions are still functions; their calls are coroutine objects
print(type(worker).__name__, worker.__name__)
co = worker("z", 0, [])
print(type(co).__name__)
try:
    co.send(None)
except StopIteration as e:
    print("empty worker:", e.value)
