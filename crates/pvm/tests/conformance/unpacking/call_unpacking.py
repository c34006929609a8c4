"""Unpacking in calls and displays: *args, **kwargs, several of each, and their errors."""

def show(*args, **kwargs):
    return f"args={args} kwargs={kwargs}"

print(show(*[1, 2], *"ab", 3))
print(show(**{"a": 1}, b=2, **{"c": 3}))
print(show(*range(2), x=1, *(9,), **dict(y=2)))
print([*range(3), *"xy", *{"k": 0}])
print((*[1], *(2, 3)))
print({*[1, 2], *(2, 3)} == {1, 2, 3})
print({**{"a": 1, "b": 2}, "b": 3, **{"c": 4}})
print({"a": 0, **{"a": 1}})

def f(a, b, c=0):
    return a, b, c

def attempt(label, fn):
    try:
        print(label, fn())
    except TypeError as e:
        print(label, "TypeError", e)

attempt("dup kw", lambda: f(1, **{"a": 2, "b": 3}))
attempt("dup in two dicts", lambda: show(**{"x": 1}, **{"x": 2}))
attempt("non-str key", lambda: show(**{1: 2}))
attempt("star non-iterable", lambda: show(*5))
attempt("dstar non-mapping", lambda: show(**[1, 2]))
attempt("missing", lambda: f(*[1]))
attempt("too many", lambda: f(*[1, 2, 3, 4]))
attempt("unexpected", lambda: f(1, 2, **{"d": 4}))

class Mapping:
    def keys(self):
        return ["p", "q"]
    def __getitem__(self, k):
        return k.upper()
print(show(**Mapping()))
print({**Mapping()})
