def f(a, b=2, *args, c, d=4, **kw):
    return (a, b, args, c, d, sorted(kw.items()))
print(f(1, c=3))
print(f(1, 5, 6, 7, c=3, e=9, d=0))
def g(a, b, /, c, *, d):
    return a + b + c + d
print(g(1, 2, 3, d=4), g(1, 2, c=3, d=4))
for call in [lambda: g(1, b=2, c=3, d=4), lambda: g(1, 2, 3, 4), lambda: f(), lambda: f(1, 2, c=1, c2=3, **{"a": 1})]:
    try:
        call()
    except TypeError as e:
        print("TypeError", e)
def h(x, y=[]):
    y.append(x)
    return y
print(h(1), h(2), h(3, []))
