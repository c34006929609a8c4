"""dict views (keys/values/items) with set algebra, live updates, and | |= operators."""
d = {"a": 1, "b": 2, "c": 3}
k, v, it = d.keys(), d.values(), d.items()
print(k, v, it, len(k), "a" in k, 2 in v, ("b", 2) in it, ("b", 3) in it)
d["d"] = 4
del d["a"]
print(list(k), list(v), list(it))
print(sorted(k & {"b", "x"}), sorted(k | {"z"}), sorted(k - {"b"}), sorted(k ^ {"b", "q"}), k == {"b", "c", "d"})
print(sorted(it & {("b", 2)}), sorted(it - {("c", 3)}), not (k & {"x"}), k <= {"b", "c", "d", "e"})
print(list(reversed(k)), list(reversed(v)), list(reversed(it)))
e = {"x": 0, "b": 20}
print(d | e, e | d, {**d, **e} == d | e)
d |= e
print(d)
d |= [("p", 1), ("q", 2)]
print(d)
def attempt(label, fn):
    try:
        print(label, fn())
    except (TypeError, ValueError, RuntimeError) as e:
        print(label, type(e).__name__, e)
attempt("or list", lambda: d | [("z", 1)])
def ior(target, other):
    target |= other
    return target
attempt("ior bad", lambda: ior(dict(d), 5))
attempt("values eq", lambda: d.values() == d.values())
def grow():
    dd = {1: 1}
    for key in dd:
        dd[key + 1] = 0
attempt("changed size", grow)
def shrink():
    dd = {1: 1, 2: 2}
    for key in dd.keys():
        del dd[key]
attempt("changed size keys", shrink)
print(type(k).__name__, type(v).__name__, type(it).__name__)
