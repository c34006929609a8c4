"""Generator-based coroutines: a round-robin scheduler driving tasks with send(), producer and
consumer coroutines passing messages, and generators closed early."""


def worker(wid, n):
    total = 0
    for i in range(n):
        got = yield ("tick", wid, i)
        total += got if got is not None else 0
    return total


def averager():
    count = 0
    total = 0
    avg = None
    while True:
        x = yield avg
        total += x
        count += 1
        avg = total // count


def scheduler(tasks):
    results = {}
    ready = list(tasks.items())
    for _, t in ready:
        next(t)
    step = 0
    while ready:
        still = []
        for name, t in ready:
            step += 1
            try:
                t.send(step % 10)
                still.append((name, t))
            except StopIteration as e:
                results[name] = e.value
        ready = still
    return results, step


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(2):
    tasks = {f"w{i}": worker(i, 15000 + 97 * i) for i in range(60)}
    results, steps = scheduler(tasks)
    avg = averager()
    next(avg)
    last = 0
    for i in range(1500000):
        last = avg.send(i % 1000)
    early = 0
    for i in range(20000):
        g = worker(i, 100)
        next(g)
        g.send(1)
        g.close()
        early += 1
    print(sum(results.values()), steps, last, early)
