import bisect

def index(a, x):
    i = bisect.bisect_left(a, x)
    if i != len(a) and a[i] == x:
        return i
    raise ValueError("not found")
def find_lt(a, x):
    i = bisect.bisect_left(a, x)
    if i:
        return a[i - 1]
    raise ValueError("none less")
def find_ge(a, x):
    i = bisect.bisect_left(a, x)
    if i != len(a):
        return a[i]
    raise ValueError("none ge")
a = list(range(0, 100, 7))
print(index(a, 49), find_lt(a, 50), find_ge(a, 50))
for f, x in [(index, 50), (find_lt, 0), (find_ge, 99)]:
    try:
        f(a, x)
    except ValueError as e:
        print("ValueError", e)
big = list(range(0, 10000, 3))
print([bisect.bisect_left(big, v) for v in (0, 1, 2999, 3000, 9999, 10000)])
r = range(0, 50, 5)
print(bisect.bisect_left(r, 23), bisect.bisect_right(r, 25))
print(bisect.bisect_left([1, 2, 3], 2.5), bisect.bisect_right([[1], [2]], [1, 0]))
