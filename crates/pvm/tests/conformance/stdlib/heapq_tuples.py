import heapq

tasks = []
heapq.heappush(tasks, (3, "write"))
heapq.heappush(tasks, (1, "plan"))
heapq.heappush(tasks, (2, "code"))
heapq.heappush(tasks, (1, "coffee"))
print(tasks)
print([heapq.heappop(tasks) for _ in range(4)])
class Job:
    def __init__(self, pri, name):
        self.pri, self.name = pri, name
    def __lt__(self, other):
        return self.pri < other.pri
    def __repr__(self):
        return f"{self.name}:{self.pri}"
jobs = [Job(5, "e"), Job(1, "a"), Job(3, "c"), Job(1, "b"), Job(4, "d")]
heapq.heapify(jobs)
print(jobs)
print([heapq.heappop(jobs) for _ in range(5)])
h = list(range(20, 0, -1))
heapq.heapify(h)
print(h)
for i in range(5):
    heapq.heapreplace(h, i * 7)
print(h)
try:
    heapq.heappush([1], "a")
except TypeError as e:
    print("TypeError", e)
s = ["pear", "apple", "fig", "kiwi"]
heapq.heapify(s)
print(s, heapq.heappop(s))
