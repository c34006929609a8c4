# Indexing lists and tuples by ints, in every corner the interpreter's fast paths must agree
# with the general path on: negative and out-of-range indices, bools, big ints, subclasses,
# augmented assignment, and values that own heap memory.
l = [10, "s", 2.5, [1], None]
t = (1, (2, 3), "x")
print(l[0], l[-1], l[-5], l[4], t[-1], t[1][0], l[3][0])
for i in (5, -6, 2**70, -(2**70)):
    for seq in (l, t):
        try:
            seq[i]
        except IndexError as e:
            print(type(seq).__name__, i, "IndexError", e)
print(l[True], l[False], t[True])
try:
    l[1.0]
except TypeError as e:
    print(e)
class L(list):
    def __getitem__(self, i):
        return ("sub", i)
    def __setitem__(self, i, v):
        print("set", i, v)
s = L([1, 2, 3])
print(s[0], s[-1])
s[1] = 9
print(list(s))
m = [0, 0, 0]
for k in range(6):
    m[k % 3] += k
    m[-1 - k % 3] -= 1
print(m)
m[-3] = "first"
m[True] = ["b"]
print(m)
for i in (3, -4, 2**70):
    try:
        m[i] = 0
    except IndexError as e:
        print("store", i, e)
grid = [[0] * 3 for _ in range(3)]
for i in range(3):
    for j in range(3):
        grid[i][j] = grid[i - 1][j - 1] + i * 3 + j
print(grid)
a = [1.5, 2.5]
a[0] *= a[1]
a[1] /= 2
print(a, a[0] - a[-1])
nested = [[1, 2], [3, 4]]
x = nested[0]
nested[0] = nested[1]
print(x, nested, nested[0] is nested[1])
