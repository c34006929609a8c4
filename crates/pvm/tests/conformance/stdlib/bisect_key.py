import bisect

data = [("red", 5), ("blue", 1), ("yellow", 8), ("black", 0)]
data.sort(key=lambda r: r[1])
keys = [r[1] for r in data]
print(data[bisect.bisect_left(keys, 5)])
print(bisect.bisect_left(data, 5, key=lambda r: r[1]), bisect.bisect_right(data, 5, key=lambda r: r[1]))
print(bisect.bisect(data, 1, key=lambda r: r[1]), bisect.bisect_left(data, 100, key=lambda r: r[1]))
words = ["a", "bb", "ccc", "dddd"]
print(bisect.bisect_left(words, 2, key=len), bisect.bisect_right(words, 2, key=len))
calls = []
def k(x):
    calls.append(x)
    return x
bisect.bisect_left(list(range(100)), 37, key=k)
print(len(calls) <= 8, 37 in calls)
try:
    bisect.bisect_left([1, 2], "a")
except TypeError as e:
    print("TypeError", e)
print(bisect.bisect_left([1, 2, 3], 2, key=None), bisect.bisect_right([3, 2, 1], -2, key=lambda v: -v))
