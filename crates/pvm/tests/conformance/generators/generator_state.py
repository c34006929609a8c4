def g():
    yield 1
    raise ValueError("inside")
it = g(); print(next(it))
try: next(it)
except ValueError as e: print("ValueError", e)
try: next(it)
except StopIteration: print("exhausted")
def gen_return():
    return 5
    yield
try: next(gen_return())
except StopIteration as e: print("value", e.value)
def infinite():
    i = 0
    while True:
        try:
            yield i
        except GeneratorExit:
            print("cleanup at", i); raise
        i += 1
x = infinite(); next(x); next(x); x.close(); print("closed")
