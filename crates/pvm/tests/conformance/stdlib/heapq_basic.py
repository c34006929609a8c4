import heapq

h = []
for x in [5, 3, 8, 1, 9, 2, 7, 3]:
    heapq.heappush(h, x)
    print(h)
out = []
while h:
    out.append(heapq.heappop(h))
    print(h)
print(out)
data = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
heapq.heapify(data)
print(data)
print(heapq.heapreplace(data, 10), data)
print(heapq.heappushpop(data, -1), data)
print(heapq.heappushpop(data, 5), data)
print(heapq.heappushpop([], 3))
for bad in [lambda: heapq.heappop([]), lambda: heapq.heapreplace([], 1)]:
    try:
        bad()
    except IndexError as e:
        print("IndexError", e)
for bad in [lambda: heapq.heappush((), 1), lambda: heapq.heapify(()), lambda: heapq.heappop(()),
            lambda: heapq.heappushpop((), 1), lambda: heapq.heapreplace("ab", 1)]:
    try:
        bad()
    except TypeError as e:
        print("TypeError", e)
