a, (b, c), *d = 1, (2, 3), 4, 5
print(a, b, c, d)
first, *mid, last = "hello"
print(first, mid, last)
*init, tail = [1]
print(init, tail)
x, y = y, x = 1, 2
print(x, y)
print([*range(3), *"ab"], {**{"a": 1}, "b": 2, **{"a": 3}}, (*[1, 2],))
for i, (k, v) in enumerate({"p": 1, "q": 2}.items()): print(i, k, v)
try:
    p, q = [1, 2, 3]
except ValueError as e: print("ValueError", e)
try:
    p, q, r = [1, 2]
except ValueError as e: print("ValueError", e)
