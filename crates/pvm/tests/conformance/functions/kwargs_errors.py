def f(a, b): return a + b
def g(*, key): return key
def h(a, /, b): return a, b
tests = [lambda: f(1), lambda: f(1, 2, 3), lambda: f(1, a=2), lambda: f(1, c=2), lambda: g(1),
         lambda: g(), lambda: h(a=1, b=2), lambda: f(**{"a": 1, "b": 2, "c": 3}), lambda: f(*[1])]
for t in tests:
    try:
        print(t())
    except TypeError as e:
        print("TypeError:", e)
print(f(*(1, 2)), f(**{"b": 1, "a": 2}), h(1, b=5))
