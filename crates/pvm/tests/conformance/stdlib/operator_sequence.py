import operator as op

d = {"a": 1}
op.setitem(d, "b", 2)
print(d, op.getitem(d, "a"))
op.delitem(d, "a")
print(d)
l = [0, 1, 2, 3, 4]
print(op.getitem(l, 2), op.getitem(l, slice(1, 3)), op.getitem("hello", -1))
op.setitem(l, slice(0, 2), ["a"])
print(l)
op.delitem(l, slice(None, None, 2))
print(l)
print(op.countOf([1, 2, 1, 1], 1), op.countOf("banana", "a"), op.countOf([], 0))
print(op.indexOf([5, 6, 7], 7), op.indexOf("abc", "b"))
try:
    op.indexOf([1], 2)
except ValueError as e:
    print("ValueError", e)
try:
    op.getitem([1], 5)
except IndexError as e:
    print("IndexError", e)
try:
    op.getitem({}, "k")
except KeyError as e:
    print("KeyError", e)
try:
    op.delitem([], 0)
except IndexError as e:
    print("IndexError", e)
nan = float("nan")
print(op.countOf([nan, nan], nan), op.indexOf([1, nan], nan))
print(op.contains(range(10), 5), op.countOf(iter([1, 1]), 1))
print(op.call(max, 1, 5, 3), op.call(sorted, [3, 1], reverse=True))
