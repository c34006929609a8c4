import heapq

data = [5, 1, 8, 3, 9, 2, 8, 0]
print(heapq.nlargest(3, data), heapq.nsmallest(3, data))
print(heapq.nlargest(0, data), heapq.nsmallest(-1, data), heapq.nlargest(100, data))
print(heapq.nlargest(1, []), heapq.nsmallest(1, data), heapq.nlargest(1, data))
recs = [("a", 3), ("b", 1), ("c", 3), ("d", 2), ("e", 1)]
print(heapq.nlargest(2, recs, key=lambda r: r[1]), heapq.nsmallest(2, recs, key=lambda r: r[1]))
print(heapq.nlargest(3, recs, key=lambda r: r[1]), heapq.nsmallest(4, recs, key=lambda r: r[1]))
print(heapq.nlargest(2, iter("hello")), heapq.nsmallest(2, "hello"))
print(heapq.nlargest(2, {"x": 1, "y": 2, "z": 0}.items(), key=lambda kv: kv[1]))
print(heapq.nsmallest(3, range(10, 0, -1), key=lambda v: -v))
