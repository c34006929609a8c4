"""zip (incl. strict=True), map with several iterables, filter(None), enumerate(start), iter(callable, sentinel), next(default)."""
print(list(zip("abc", range(5))), list(zip()), list(zip([1])), list(zip("ab", "cd", "ef")))
print(list(zip("ab", [1, 2], strict=True)))
for a, b in [("abc", [1, 2]), ("a", [1, 2]), ("", [1])]:
    try:
        print(list(zip(a, b, strict=True)))
    except ValueError as e:
        print(type(e).__name__, e)
try:
    list(zip("ab", "cd", "e", strict=True))
except ValueError as e:
    print(type(e).__name__, e)
print(list(map(str.upper, "ab")), list(map(pow, [2, 3], [3, 2])), list(map(lambda *a: sum(a), [1, 2], [10, 20], [100])))
print(list(filter(None, [0, 1, "", "x", None, [], [0]])), list(filter(lambda x: x % 2, range(7))), list(filter(str.isdigit, "a1b2")))
print(list(enumerate("ab")), list(enumerate("ab", start=10)), list(enumerate([], 5)), list(enumerate("x", -1)))
counter = iter([3, 2, 1, 0, 5])
print(list(iter(lambda: next(counter), 0)))
it = iter([1])
print(next(it), next(it, "default"), next(it, None))
def attempt(label, fn):
    try:
        print(label, fn())
    except (TypeError, StopIteration, ValueError) as e:
        print(label, type(e).__name__, e)
attempt("next exhausted", lambda: next(iter([])))
attempt("next non-iterator", lambda: next([1]))
attempt("zip non-iterable", lambda: zip(1))
attempt("map non-callable", lambda: list(map(5, [1])))
attempt("map no iterables", lambda: map(str))
attempt("filter non-iterable", lambda: filter(None, 5))
attempt("enumerate bad start", lambda: enumerate("a", "b"))
attempt("iter non-callable sentinel", lambda: iter(5, 0))
attempt("iter int", lambda: iter(5))
z = zip([1, 2], "ab")
print(next(z), list(z), list(z))
m = map(abs, [-1, -2])
print(iter(m) is m, next(m), list(m))
