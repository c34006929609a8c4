import collections

d = collections.deque(maxlen=3)
for i in range(6):
    d.append(i)
    print(d)
d.appendleft("L")
print(d, d.maxlen)
d.extend("xy")
print(d)
d.extendleft([7, 8])
print(d)
try:
    d.insert(0, 1)
except IndexError as e:
    print("IndexError", e)
print(collections.deque(range(10), 4), collections.deque([1, 2, 3], 5))
z = collections.deque([1, 2], maxlen=0)
z.append(3)
z.appendleft(4)
print(z, len(z))
m = collections.deque([1, 2], maxlen=5)
print(m * 3, 2 * m, m + collections.deque([9]))
m *= 4
print(m)
m += [0, 0]
print(m)
c = m.copy()
c.append("new")
print(c, m, c.maxlen)
try:
    m.maxlen = 3
except AttributeError:
    print("AttributeError")
it = iter(m)
next(it)
m.append(1)
try:
    next(it)
except RuntimeError as e:
    print("RuntimeError", e)
def tail(seq, n):
    return list(collections.deque(seq, maxlen=n))
print(tail(range(100), 3), tail("hello", 10))
e = collections.deque([1, 2, 3])
e.extend(e)
print(e)
e.extendleft(e)
print(e)
try:
    hash(e)
except TypeError:
    print("TypeError")
print(repr(collections.deque()), repr(collections.deque([], 2)))
