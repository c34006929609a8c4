"""Unpacking errors: CPython's exact ValueError and TypeError messages."""

def attempt(label, fn):
    try:
        print(label, fn())
    except (ValueError, TypeError) as e:
        print(label, type(e).__name__, e)

def two(v):
    a, b = v
    return a, b

def star(v):
    a, b, *c, d = v
    return a, b, c, d

attempt("too many list", lambda: two([1, 2, 3]))
attempt("too many str", lambda: two("abcd"))
attempt("too few", lambda: two([1]))
attempt("empty", lambda: two([]))
attempt("int", lambda: two(5))
attempt("None", lambda: two(None))
attempt("gen too many", lambda: two(x for x in range(3)))
attempt("star too few", lambda: star([1, 2]))
attempt("star ok", lambda: star([1, 2, 3]))
attempt("star int", lambda: star(7))
attempt("dict ok", lambda: two({"a": 1, "b": 2}))
attempt("dict too many", lambda: two({"a": 1, "b": 2, "c": 3}))

def nested(v):
    (a, b), c = v
    return a, b, c
attempt("nested ok", lambda: nested([(1, 2), 3]))
attempt("nested bad", lambda: nested([(1, 2, 3), 3]))
attempt("nested int", lambda: nested([1, 2]))

def for_unpack(v):
    out = []
    for a, b in v:
        out.append(a + b)
    return out
attempt("for ok", lambda: for_unpack([(1, 2), [3, 4]]))
attempt("for bad", lambda: for_unpack([(1, 2), (3,)]))

# the iterable is consumed only as far as needed to detect "too many"
consumed = []
def tracked():
    for i in range(10):
        consumed.append(i)
        yield i
attempt("tracked", lambda: two(tracked()))
print("consumed", consumed)
