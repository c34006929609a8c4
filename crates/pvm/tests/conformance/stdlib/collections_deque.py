import collections

d = collections.deque([1, 2, 3])
d.append(4)
d.appendleft(0)
print(d, len(d), d[0], d[-1], d.pop(), d.popleft(), d)
d.extend([4, 5])
d.extendleft("ab")
print(d)
d.rotate(2)
print(d)
d.rotate(-3)
print(d)
d.rotate(0)
d.rotate(17)
print(d, d.index(3), d.count(1), 3 in d, 99 in d)
d.insert(1, "X")
d.remove(4)
print(d)
d.reverse()
print(d, list(reversed(d)))
d[0] = "first"
del d[1]
print(d, d.maxlen)
try:
    d.remove("nope")
except ValueError as e:
    print("ValueError", e)
try:
    d.index("nope")
except ValueError as e:
    print("ValueError", e)
for bad in [lambda: collections.deque().pop(), lambda: collections.deque().popleft(), lambda: d[50]]:
    try:
        bad()
    except IndexError as e:
        print("IndexError", e)
for bad in [lambda: d["a"], lambda: d[1:2], lambda: d + [1], lambda: collections.deque(maxlen="a")]:
    try:
        bad()
    except TypeError as e:
        print("TypeError", e)
try:
    collections.deque(maxlen=-1)
except ValueError as e:
    print("ValueError", e)
q = collections.deque()
for i in range(100):
    q.append(i)
    if i % 3:
        q.popleft()
print(len(q), list(q)[:5], q[0], q[-1])
for i in range(50):
    q.appendleft(-i)
print(len(q), q[0], q[49], q[50])
d2 = collections.deque(range(5))
d2.clear()
print(d2, bool(d2), bool(collections.deque([0])))
print(collections.deque("abc") == collections.deque("abc"), collections.deque([1]) < collections.deque([2]), collections.deque([1]) == [1])
