"""del a[i:j], del a[::k] (positive and negative steps), a[i:j] = […] resizing, and slice
assignment whose iterable resizes the list while it is consumed."""

for sl in [slice(2, 8), slice(None, None, 2), slice(None, None, -3), slice(1, None, 4), slice(8, 2, -2),
           slice(0, 0), slice(-3, None), slice(None, None, 1), slice(5, 100, 7), slice(None, None, -1),
           slice(100, None), slice(-100, 3), slice(11, None, -5), slice(3, 4, 5), slice(None, 5, -1)]:
    a = list(range(12))
    del a[sl]
    b = bytearray(range(12))
    del b[sl]
    print(sl, a, list(b) == a)
for sl, new in [(slice(2, 5), "abcdefg"), (slice(2, 9), [0]), (slice(5, 2), [7]), (slice(0, 12), []),
                (slice(None, None, 3), "wxyz"), (slice(None, None, -4), (1, 2, 3)), (slice(20, 30), [5])]:
    a = list(range(12))
    a[sl] = new
    print(sl, a)
a = list(range(10))
a[2:8] = (a.clear() or x for x in range(3))
print(a)
a = list(range(10))
a[2:8] = (a.append(99) or x for x in range(3))
print(a)
b = bytearray(b"abcdefgh")
b[1:5] = (b.clear() or x for x in b"XY")
print(b)
big = list(range(1000))
del big[::2]
del big[100:]
print(len(big), big[:5], big[-3:])
for sl, new in [(slice(None, None, 2), [1]), (slice(0, 3), 5)]:
    try:
        a = list(range(6))
        a[sl] = new
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
