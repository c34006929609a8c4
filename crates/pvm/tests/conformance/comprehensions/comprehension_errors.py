"""Errors raised inside comprehensions propagate with the right type; generators inside them; side effects order."""
def attempt(label, fn):
    try:
        print(label, fn())
    except (ZeroDivisionError, TypeError, KeyError, ValueError) as e:
        print(label, type(e).__name__, e)
attempt("div", lambda: [1 // x for x in [1, 0]])
attempt("type", lambda: [x + 1 for x in [1, "a"]])
attempt("key", lambda: {k: {}[k] for k in "a"})
attempt("not iterable", lambda: [x for x in 5])
attempt("inner not iterable", lambda: [y for x in [1] for y in x])
attempt("unpack", lambda: [a for a, b in [(1, 2), (3,)]])
attempt("int()", lambda: {int(s) for s in ["1", "two"]})
order = []
def src(tag, n):
    order.append(f"iter {tag}")
    return range(n)
result = [(a, b) for a in src("outer", 2) for b in src(f"inner{a}", a + 1)]
print(result, order)
def check(v):
    order.append(f"check {v}")
    return v % 2 == 0
order.clear()
print([v for v in range(4) if check(v)], order)
gen_in_list = [sum(x for x in range(n)) for n in range(5)]
print(gen_in_list)
print([list(g) for g in [(i for i in range(k)) for k in range(3)]])
