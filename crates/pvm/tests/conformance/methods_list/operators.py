"""list operators: + * == < in, slicing reads, comparisons of nested lists, repeat edge cases."""
a, b = [1, 2, 3], [1, 2, 4]
print(a + b, a * 2, 2 * a, a * 0, a * -3, [[]] * 3, a < b, a < a[:2], a == [1, 2, 3.0], a != b)
print([1, [2, 3]] < [1, [2, 4]], [] < [0], [0] > [], 3 in a, [2] in [[2]], a[1:], a[::-1], a[::2], a[-2:], a[5:])
print(max(a), min(b), sum(a), len(a * 3), a.__len__(), list(reversed(a)), [x for x in a if x > 1])
nested = [[0] * 2] * 2
nested[0][0] = 1
print(nested)
fresh = [[0] * 2 for _ in range(2)]
fresh[0][0] = 1
print(fresh)
x = [1, 2]
y = x
x += [3]
print(y, x is y)
x = x + [4]
print(y, x is y)
x *= 2
print(x)
def attempt(label, fn):
    try:
        print(label, fn())
    except (TypeError, ValueError, IndexError, OverflowError, MemoryError) as e:
        print(label, type(e).__name__, e)
attempt("add tuple", lambda: [1] + (2,))
attempt("mul float", lambda: [1] * 2.0)
attempt("lt int", lambda: [1] < 1)
attempt("lt mixed", lambda: [1, "a"] < [1, 2])
attempt("index", lambda: a[3])
attempt("neg index", lambda: a[-4])
attempt("float index", lambda: a[1.0])
r = [1, 2, 3]
r.append(r)
print(r, r == r if False else "self-containing list printed")
