"""Starred assignment targets: position of the star, empty captures, any iterable on the right."""

a, *b = [1, 2, 3]
print(a, b)
*a, b = (1, 2, 3)
print(a, b)
a, *b, c = range(5)
print(a, b, c)
a, *b, c = "xy"
print(a, b, c)
*a, = {"k": 1, "j": 2}
print(a)
first, *_, last = iter([10, 20, 30, 40])
print(first, last)
(a, b), *c = [(1, 2), 3, 4]
print(a, b, c)
x = y = [1, 2]
x, *y = y
print(x, y)
# starred in for targets
for head, *tail in [(1, 2, 3), (4,), "ab"]:
    print(head, tail)
# swapping and rotation evaluate the right side first
p, q, r = 1, 2, 3
p, q, r = q, r, p
print(p, q, r)
lst = [0, 1, 2]
i = 0
i, lst[i] = 1, 99
print(i, lst)
# unpacking a generator consumes it
g = (n * n for n in range(4))
s1, s2, *rest = g
print(s1, s2, rest, list(g))
# dict unpacking gives keys in insertion order
d = dict(zip("cab", range(3)))
k1, k2, k3 = d
print(k1, k2, k3)
k1, *kr = d.items()
print(k1, kr)
