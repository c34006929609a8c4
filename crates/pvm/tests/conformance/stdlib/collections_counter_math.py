import collections

a = collections.Counter(a=3, b=1, c=0, d=-2)
b = collections.Counter(a=1, b=2, e=1, d=-5)
print(a + b)
print(a - b)
print(a | b)
print(a & b)
print(+a, -a)
x = collections.Counter(a=3, b=1, c=0)
x += collections.Counter(a=1, c=-1)
print(x)
x -= collections.Counter(a=10, z=-3)
print(x)
y = collections.Counter(a=1, b=5)
y |= collections.Counter(a=4, b=1, c=2)
print(y)
y &= collections.Counter(a=2, c=7)
print(y)
print(collections.Counter(a=1) == collections.Counter(a=1, b=0), collections.Counter(a=1) != collections.Counter(a=2))
print(collections.Counter(a=1) <= collections.Counter(a=2), collections.Counter(a=1) < collections.Counter(a=1))
print(collections.Counter(a=3, b=1) >= collections.Counter(a=1), collections.Counter(a=2) > collections.Counter(a=2, b=-1))
print(collections.Counter(a=1) == {"a": 1}, collections.Counter() == {})
try:
    collections.Counter(a=1) + {"a": 1}
except TypeError as e:
    print("TypeError", e)
try:
    collections.Counter(a=1) < {"a": 1}
except TypeError as e:
    print("TypeError", e)
try:
    hash(collections.Counter())
except TypeError as e:
    print("TypeError", e)
print(sum([collections.Counter("ab"), collections.Counter("bc")], collections.Counter()))
