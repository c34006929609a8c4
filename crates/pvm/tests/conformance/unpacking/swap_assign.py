# `a, b = x, y` is compiled to a stack swap (no tuple): evaluation and store order unchanged.
log = []


def v(name, x):
    log.append("eval " + name)
    return x


class Rec:
    def __setitem__(self, k, x):
        log.append(f"set [{k}] = {x}")

    def __setattr__(self, k, x):
        log.append(f"set .{k} = {x}")


a, b = 1, 2
a, b = b, a
print(a, b)
a, b, c = v("x", 1), v("y", 2), v("z", 3)
print(a, b, c, log)
a, b, c = c, a, b
print(a, b, c)
log.clear()
r = Rec()
r[0], r.attr, r[v("k", 2)] = v("p", "P"), v("q", "Q"), v("s", "S")
print(log)
xs = [1, 2, 3, 4]
i, xs[i] = 2, 9
print(i, xs)
xs[0], xs[3] = xs[3], xs[0]
print(xs)
[m, n] = 5, 6
(p, q), w = (7, 8), 9
print(m, n, p, q, w)
s, *t = 1, 2
print(s, t)
try:
    e, f = 1, 2, 3
except ValueError as err:
    print("ValueError", err)
fa, fb = 0, 1
for _ in range(10):
    fa, fb = fb, fa + fb
print(fa, fb)
