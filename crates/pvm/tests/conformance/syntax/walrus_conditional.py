"""Assignment expressions and conditional expressions: in while, if, comprehensions, chained comparisons."""
data = [5, 3, 8, 0, 7]
it = iter(data)
seen = []
while (v := next(it)) != 0:
    seen.append(v)
print(seen, v)
if (n := len(data)) > 3:
    print("long list of", n)
print([y for x in data if (y := x * 2) > 6], y)
print("big" if n > 4 else "small", "neg" if -1 < 0 else "pos", ("a" if False else "b" if True else "c"))
x = 7
print(1 < x < 10, 1 < x > 5, 10 > x >= 7 > 6, x == 7 == 7.0, 1 < x < 5, (1 < x) < 5, 0 < x != 8)
calls = []
def val(k):
    calls.append(k)
    return k
print(val(1) < val(2) < val(0) < val(3), calls)
print((lambda: (z := 10) + z)(), [w := 3, w * 2])
total = 0
print([total := total + i for i in range(4)], total)
print(not 1 == 2, not (1 and 0), 1 if 0 or [] else 2, 0 or "" or None or "last", 1 and 2 and 3, [] and 1)
