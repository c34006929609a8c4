def quicksort(xs):
    if len(xs) <= 1: return xs
    p, *rest = xs
    return quicksort([x for x in rest if x < p]) + [p] + quicksort([x for x in rest if x >= p])
def binsearch(xs, t):
    lo, hi = 0, len(xs)
    while lo < hi:
        mid = (lo + hi) // 2
        if xs[mid] < t: lo = mid + 1
        else: hi = mid
    return lo
data = [(i * 37) % 101 for i in range(30)]
s = quicksort(data)
print(s == sorted(data), s[:10], binsearch(s, 50), binsearch(s, -1), binsearch(s, 1000))
stack = []; stack.append(1); stack.append(2); print(stack.pop(), stack)
q = [1, 2, 3]; q.insert(0, 0); print(q.pop(0), q, q[::-1], q * 0, [] + q)
m = [[0] * 3 for _ in range(3)]; m[1][1] = 5; print(m, [r[:] for r in m] == m)
print(list(zip(*[[1, 2, 3], [4, 5, 6]])), [x for pair in zip("abc", "xyz") for x in pair])
