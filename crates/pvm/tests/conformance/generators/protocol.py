def gen():
    x = yield 1
    print("got", x)
    try:
        y = yield 2
    except ValueError as e:
        print("caught", e)
        y = yield 3
    return x + (y or 0)
g = gen()
print(next(g), g.send(10), g.throw(ValueError("boom")))
try: g.send(5)
except StopIteration as e: print("return", e.value)
def inner():
    yield "a"; yield "b"; return "inner-done"
def outer():
    r = yield from inner()
    yield r
print(list(outer()))
def closing():
    try:
        yield 1; yield 2
    finally:
        print("closed")
c = closing(); next(c); c.close()
print(list(x * 2 for x in range(4) if x), sum(i for i in range(10)))
