def averager():
    total = 0.0; n = 0; avg = None
    while True:
        x = yield avg
        if x is None: break
        total += x; n += 1; avg = total / n
    return (n, avg)
a = averager(); next(a)
print([a.send(v) for v in (10, 20, 60)])
try: a.send(None)
except StopIteration as s: print("done", s.value)
def chain(*its):
    for it in its: yield from it
print(list(chain("ab", range(2), [None])))
g = (i for i in range(3)); print(next(g), list(g), list(g))
