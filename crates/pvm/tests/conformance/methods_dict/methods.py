"""dict methods: get/setdefault/pop/popitem/update/fromkeys/copy/clear and their errors."""
d = dict(a=1, b=2)
print(d.get("a"), d.get("z"), d.get("z", 0), d.setdefault("a", 9), d.setdefault("c"), d)
print(d.pop("c"), d.pop("zz", "dflt"), d)
d.update({"x": 1}, y=2); d.update([("z", 3)]); d.update(w=4)
print(d)
print(d.popitem(), d.popitem(), d)
print(dict.fromkeys("ab"), dict.fromkeys(range(3), []), dict.fromkeys([], 1))
shared = dict.fromkeys("xy", [])
shared["x"].append(1)
print(shared)
c = d.copy(); c["new"] = 1; print(d, c)
c.clear(); print(c, len(c))
print(dict([(1, 2), [3, 4]]), dict({"k": 1}, k=2), dict(zip("ab", (1, 2))), dict(), dict(**{"q": 1}))
def attempt(label, fn):
    try:
        print(label, fn())
    except (KeyError, TypeError, ValueError) as e:
        print(label, type(e).__name__, e)
attempt("missing", lambda: {}["nope"])
attempt("missing tuple", lambda: {}[(1, 2)])
attempt("pop missing", lambda: {}.pop("k"))
attempt("popitem empty", lambda: {}.popitem())
attempt("unhashable key", lambda: {[1]: 2})
attempt("bad seq elem", lambda: dict([(1, 2, 3)]))
attempt("bad seq type", lambda: dict([1]))
attempt("update non-iter", lambda: {}.update(5))
attempt("setdefault unhashable", lambda: {}.setdefault([]))
class Missing(dict):
    def __missing__(self, key):
        return key * 2
m = Missing(a=1)
print(m["a"], m["zz"], m.get("zz"), "zz" in m, len(m))
