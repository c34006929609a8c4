print(StopIteration().value, StopIteration(1, 2).value, StopIteration((1, 2)).value)
e = StopIteration(5); e.value = 7; print(e.value, e.args)
class S(StopIteration): pass
print(S("x").value, StopAsyncIteration.__name__)
def g():
    yield 1
    return [1, 2]
it = g(); next(it)
try: next(it)
except StopIteration as e: print("value", e.value, e.args)
def h():
    return (yield)
it = h(); next(it)
try: it.send((3, 4))
except StopIteration as e: print("tuple", e.value, e.args)
def d():
    r = yield from g()
    return r * 2
print(list(d()))
it = d(); next(it)
try: next(it)
except StopIteration as e: print("delegated", e.value)
try: raise StopIteration("manual")
except StopIteration as e: print(e.value, hasattr(e, "value"), "value" in e.__dict__)
