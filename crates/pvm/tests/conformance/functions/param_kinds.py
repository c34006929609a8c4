"""Every parameter kind: positional-only, positional-or-keyword, *args, keyword-only, **kwargs, and defaults."""
def f(a, b=2, /, c=3, *args, d, e=5, **kw):
    return (a, b, c, args, d, e, kw)
print(f(1, d=4))
print(f(1, 20, 30, 40, 50, d=4, e=6, z=7))
print(f(1, c=33, d=4, b=9))
def only_pos(x, y, /):
    return x - y
def only_kw(*, key, flag=False):
    return (key, flag)
def varargs(*args, **kwargs):
    return args, kwargs
print(only_pos(5, 3), only_kw(key="k"), only_kw(flag=True, key=1), varargs(), varargs(1, a=2))
def attempt(label, fn):
    try:
        print(label, fn())
    except TypeError as e:
        print(label, "TypeError", e)
attempt("pos-only by kw", lambda: only_pos(x=1, y=2))
attempt("kw-only positional", lambda: only_kw(1))
attempt("missing kw-only", lambda: only_kw())
attempt("missing two", lambda: only_pos())
attempt("missing one", lambda: only_pos(1))
attempt("too many", lambda: only_pos(1, 2, 3))
attempt("unexpected", lambda: only_kw(key=1, other=2))
attempt("multiple", lambda: f(1, 2, 3, c=4, d=5))
attempt("missing d", lambda: f(1))
def defaults(a, b=[], c={}):
    b.append(a)
    c[a] = len(b)
    return b, c
print(defaults(1), defaults(2), defaults.__defaults__)
def kwdefaults(*, x=1, y=2):
    return x + y
print(kwdefaults.__kwdefaults__, kwdefaults(y=10), f.__kwdefaults__, only_pos.__kwdefaults__)
print(f.__name__, only_kw.__defaults__, varargs.__defaults__)
