import heapq

print(list(heapq.merge([1, 3, 5], [2, 4, 6], [0, 7])))
print(list(heapq.merge()), list(heapq.merge([], [1], [])))
print(list(heapq.merge([5, 3, 1], [4, 2], reverse=True)))
a = [(1, "a1"), (2, "a2")]
b = [(1, "b1"), (2, "b2")]
print(list(heapq.merge(a, b, key=lambda p: p[0])))
print(list(heapq.merge(b, a, key=lambda p: p[0])))
print(list(heapq.merge(b, a, key=lambda p: p[0], reverse=True)))
print(list(heapq.merge(["apple", "fig"], ["kiwi", "banana"], key=len)))
print(list(heapq.merge(iter([1, 1]), iter([1]), [0, 1])))
m = heapq.merge([1, 4], [2, 3])
print(next(m), next(m), list(m))
print(list(heapq.merge("ace", "bdf")))
