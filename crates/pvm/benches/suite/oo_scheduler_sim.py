"""Discrete-event simulation of a job shop: Machine, Job and Event objects, a heapq event queue,
method dispatch and attribute updates on every event."""
import heapq


class Job:
    def __init__(self, jid, steps):
        self.jid = jid
        self.steps = steps
        self.next = 0
        self.waited = 0
        self.done_at = None


class Machine:
    def __init__(self, mid, speed):
        self.mid = mid
        self.speed = speed
        self.queue = []
        self.busy = False
        self.worked = 0

    def enqueue(self, job, now):
        self.queue.append((now, job))

    def start(self, now):
        if self.busy or not self.queue:
            return None
        since, job = self.queue.pop(0)
        job.waited += now - since
        work = job.steps[job.next][1]
        duration = (work + self.speed - 1) // self.speed
        self.busy = True
        self.worked += duration
        return now + duration, job


class Shop:
    def __init__(self, machines):
        self.machines = machines
        self.events = []
        self.seq = 0
        self.finished = []

    def push(self, t, kind, payload):
        self.seq += 1
        heapq.heappush(self.events, (t, self.seq, kind, payload))

    def route(self, job, now):
        if job.next == len(job.steps):
            job.done_at = now
            self.finished.append(job)
            return
        m = self.machines[job.steps[job.next][0]]
        m.enqueue(job, now)
        self.kick(m, now)

    def kick(self, m, now):
        started = m.start(now)
        if started is not None:
            t, job = started
            self.push(t, "done", (m, job))

    def run(self):
        while self.events:
            now, _, kind, payload = heapq.heappop(self.events)
            if kind == "arrive":
                self.route(payload, now)
            else:
                m, job = payload
                m.busy = False
                job.next += 1
                self.route(job, now)
                self.kick(m, now)
        return now


def lcg(seed):
    while True:
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        yield seed


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(2):
    rand = lcg(42)
    machines = [Machine(i, 1 + i % 3) for i in range(12)]
    shop = Shop(machines)
    for jid in range(25000):
        steps = [((next(rand) >> 8) % 12, 1 + (next(rand) >> 8) % 20) for _ in range(1 + jid % 6)]
        shop.push(jid * 9, "arrive", Job(jid, steps))
    end = shop.run()
    waited = sum(j.waited for j in shop.finished)
    print(end, len(shop.finished), waited, [m.worked for m in machines])
