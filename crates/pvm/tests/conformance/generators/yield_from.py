"""yield from: delegation of values, send, throw and return values; nested delegation; iterables."""
def inner():
    got = yield "i1"
    print("inner got", got)
    try:
        yield "i2"
    except KeyError as e:
        print("inner handled", repr(e))
        yield "i3"
    return "inner-result"
def outer():
    result = yield from inner()
    print("outer got result", result)
    yield "o1"
g = outer()
print(next(g), g.send("hello"), g.throw(KeyError("k")), next(g))
def chain(*its):
    for it in its:
        yield from it
print(list(chain([1, 2], "ab", range(2), (x * x for x in range(3)))))
def depth(n):
    if n == 0:
        yield "bottom"
        return 0
    r = yield from depth(n - 1)
    yield f"level {n}"
    return r + 1
d = depth(3)
print(list(d))
def total():
    r = yield from depth(2)
    yield r
print(list(total()))
def flatten(x):
    if isinstance(x, list):
        for y in x:
            yield from flatten(y)
    else:
        yield x
print(list(flatten([1, [2, [3, [4]], 5], [[6]]])))
def delegator():
    yield from iter([10, 20])
    return "iter done"
dg = delegator()
print(next(dg), next(dg))
try:
    next(dg)
except StopIteration as e:
    print(e.value)
def closer():
    try:
        yield from inner()
    finally:
        print("delegator finally")
c = closer()
next(c)
c.close()
