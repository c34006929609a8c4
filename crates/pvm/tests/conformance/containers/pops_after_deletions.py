# Pops and iteration around the tombstones that deletions leave at either end and in the
# middle of dicts and sets (the PVM starts pops and iterators past them).
d = {i: i * i for i in range(100)}
for i in range(0, 40):
    del d[i]
for i in range(90, 100):
    del d[i]
print(next(iter(d)), list(d)[-1], len(d))
print(d.popitem(), d.popitem(), len(d))
d[1000] = 1
print(d.popitem(), d.popitem())
for i in range(40, 60):
    d.pop(i)
print(list(d.items())[:3], len(d))
while len(d) > 2:
    d.popitem()
print(d, d.popitem(), d.popitem(), d)
try:
    d.popitem()
except KeyError as e:
    print("KeyError", e)

s = set(range(64))
for i in range(0, 30):
    s.discard(i)
print(s.pop(), s.pop(), len(s))
for i in range(34, 50):
    s.remove(i)
print(sorted(s)[:4], next(iter(s)), [x for x in s][:3])
it = iter(s)
print(next(it), next(it))
while s:
    last = s.pop()
print(last, s)
try:
    s.pop()
except KeyError as e:
    print("KeyError", e)

e = dict.fromkeys("abcdef")
del e["a"], e["b"]
e["g"] = 0
it = iter(e)
print(next(it), list(it))
t = {1, 2, 3}
t.discard(1)
it = iter(t)
t.add(4)
try:
    print(list(it))
except RuntimeError as err:
    print("RuntimeError", err)
