# The native heap operations (_heapq): CPython's layouts, errors and hostile comparisons.
import heapq

# Layouts after every operation match CPython's, for many sizes and with ties.
for n in range(0, 40, 3):
    data = [(i * 37) % 11 for i in range(n)]
    heapq.heapify(data)
    print(n, data)
    h = []
    for i in range(n):
        heapq.heappush(h, ((i * 13) % 7, i))
    print(h)
    out = [heapq.heappop(h) for _ in range(len(h) // 2)]
    print(out, h)
    if h:
        print(heapq.heapreplace(h, (3, -1)), heapq.heappushpop(h, (2, -2)), h)

# Arguments.
for call in [lambda: heapq.heappush([]), lambda: heapq.heappush([], 1, 2),
             lambda: heapq.heappop(), lambda: heapq.heapify([], []),
             lambda: heapq.heapreplace([1]), lambda: heapq.heappushpop([1], 1, 2),
             lambda: heapq.heappush(None, 1), lambda: heapq.heapify({}),
             lambda: heapq.heappush([1, "a"], 2), lambda: heapq.heappop([]),
             lambda: heapq.heapreplace([], 0)]:
    try:
        call()
    except (TypeError, IndexError) as e:
        print(type(e).__name__, e)


class Shrinker:
    """Empties the heap it belongs to when compared."""

    def __init__(self, v, heap):
        self.v, self.heap = v, heap

    def __lt__(self, other):
        self.heap.clear()
        return self.v < other.v


h = []
items = [Shrinker(v, h) for v in [5, 3, 8, 1]]
h.append(items[0])
for x in items[1:]:
    try:
        heapq.heappush(h, x)
    except RuntimeError as e:
        print("RuntimeError", e, len(h))
for op in [heapq.heappop, heapq.heapify]:
    h[:] = [Shrinker(v, h) for v in [4, 2, 6, 1, 0]]
    try:
        op(h)
    except RuntimeError as e:
        print("RuntimeError", e, len(h))
h[:] = [Shrinker(1, h)]
try:
    heapq.heappushpop(h, Shrinker(2, h))
except IndexError as e:
    print("IndexError", e, len(h))


class Boom:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        if self.v == 7 or other.v == 7:
            raise ValueError("no order for 7")
        return self.v < other.v


h = [Boom(v) for v in [1, 3, 5]]
try:
    heapq.heappush(h, Boom(7))
except ValueError as e:
    print("ValueError", e, [b.v for b in h])
print([b.v for b in h])
h = [3, 1, 2]
heapq.heapify(h)
print(h, heapq.heappop(h), heapq.heappop(h), heapq.heappop(h), h)
