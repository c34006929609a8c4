"""yield in the first iterable of a comprehension belongs to the enclosing function."""
def f():
    return [x for x in (yield)]
g = f()
next(g)
try:
    g.send([1, 2])
except StopIteration as e:
    print(e.value)
