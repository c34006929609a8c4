# Builtins called with positional arguments only (the interpreter passes them where they lie
# on its stack), the same builtins given keywords, and min/max over several arguments.
class Box:
    def __init__(self, n):
        self.n = n
    def __lt__(self, o):
        return self.n < o.n
    def __gt__(self, o):
        return self.n > o.n
    def __len__(self):
        return self.n
    def __repr__(self):
        return f"Box({self.n})"

print(len([1, 2, 3]), len("abc"), len(Box(7)), abs(-4), abs(-2.5))
print(min(3, 1, 2), max(3, 1, 2), min(Box(5), Box(2), Box(9)), max(Box(5), Box(2)))
print(min([4, 8, 1]), max("hello"), min(2, 2.0), max(2.0, 2))
print(min((1, "b"), (1, "a")), max([], default=None), min(3, 1, key=lambda x: -x))
print(sum([1, 2, 3]), sum([1, 2], 10), sum([[1], [2]], []), sum([0.5, 0.25], start=1))
print(isinstance(1, int), isinstance(Box(1), (int, Box)), ord("a"), chr(98), divmod(7, 2))
print(callable(len), hash(5), repr("x"), next(iter([9])), next(iter([]), "end"))
print(any([0, 0, 3]), all([1, 0]), any([]), all([]))
for f, args, kw in [
    (len, ([1],), {"obj": 1}),
    (abs, (-1,), {"x": 2}),
    (isinstance, (1, int), {"cls": int}),
    (ord, ("a",), {"c": 1}),
    (next, (iter([1]),), {"default": 0}),
    (divmod, (7, 2), {"y": 1}),
    (hash, (1,), {"x": 1}),
]:
    try:
        f(*args, **kw)
    except TypeError as e:
        print("TypeError:", e)
for bad in [lambda: min(), lambda: max(1, 2, default=0), lambda: min([]), lambda: len(5)]:
    try:
        bad()
    except (TypeError, ValueError) as e:
        print(type(e).__name__ + ":", e)
