# collections.UserList: a MutableSequence over self.data with list's full method set.
from collections import UserList
from collections.abc import MutableSequence

a = UserList([3, 1, 2])
print(a, len(a), a[0], a[-1], a.data, isinstance(a, MutableSequence), isinstance(a, list))
print(a[1:], type(a[1:]).__name__, a[::-1], 2 in a, 9 in a)
a.append(4)
a.insert(0, 0)
a.extend([5, 6])
a.extend(UserList([7]))
print(a, a.pop(), a.pop(0), a.index(2), a.count(1))
a.remove(4)
a.reverse()
print(a)
a.sort()
print(a)
a.sort(key=lambda x: -x, reverse=True)
print(a)
a[0] = 10
del a[1]
a[1:3] = [20, 30, 40]
print(a, a.copy(), type(a.copy()).__name__)
print(a + [1], [1] + a, a + UserList([2]), a + (9,), type([1] + a).__name__, (8,) + a)
print(a * 2, 2 * a, a == [10, 20, 30, 40, 5, 6], a == UserList(a), a != a.data)
print(a < [11], a <= a, a > UserList([1]), a >= [10, 20, 30, 40, 5, 7])
b = UserList("xy")
b += [1]
b += UserList([2])
b += (3,)
b *= 2
print(b, len(b))
b.clear()
print(b, UserList(), UserList(UserList([1])), UserList(range(3)), UserList((1, 2)))
for call in (lambda: b.pop(), lambda: a.remove(99), lambda: a.index(99), lambda: a[99],
             lambda: UserList(5), lambda: a < 5):
    try:
        call()
    except (IndexError, ValueError, TypeError) as e:
        print(type(e).__name__, e)


class Tagged(UserList):
    def __init__(self, items=None, tag="t"):
        super().__init__(items)
        self.tag = tag


t = Tagged([3, 1], tag="x")
print(type(t[:1]).__name__, t[:1].tag, type(t * 2).__name__, type(t + [1]).__name__)
print(t.copy(), list(reversed(t)), sorted(t), t.index(1, 1), t.count(3), min(t), sum(t))
try:
    hash(t)
except TypeError as e:
    print(type(e).__name__, e)
