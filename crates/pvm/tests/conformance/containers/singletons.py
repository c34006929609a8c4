"""None, NotImplemented and Ellipsis: identity, truthiness, repr, use as sentinels and default markers."""
print(None is None, type(None).__name__, repr(None), bool(None), None == 0, None == False, str(None))
print(NotImplemented, repr(NotImplemented), type(NotImplemented).__name__, ... is Ellipsis, repr(...), type(...).__name__)
print(Ellipsis == ..., [1, ..., 3], {"k": ...}, bool(...))
_missing = object()
def get(d, k, default=_missing):
    if k in d:
        return d[k]
    if default is _missing:
        raise KeyError(k)
    return default
print(get({"a": 1}, "a"), get({}, "b", None), get({}, "c", 0))
try:
    get({}, "z")
except KeyError as e:
    print(type(e).__name__, e)
def maybe(x=None):
    return "none given" if x is None else x
print(maybe(), maybe(0), maybe(""))
class Cmp:
    def __eq__(self, other):
        return NotImplemented
print(Cmp() == Cmp(), Cmp() != 1, Cmp() == None)
def stub():
    ...
print(stub(), type(stub()).__name__)
values = [None, 0, "", [], None, 5]
print([v for v in values if v is not None], values.count(None), sorted(values, key=lambda v: v is None))
try:
    None + 1
except TypeError as e:
    print(type(e).__name__, e)
try:
    None()
except TypeError as e:
    print(type(e).__name__, e)
try:
    len(None)
except TypeError as e:
    print(type(e).__name__, e)
x = [1, 2, 3]
print(x[...] if False else "no ellipsis indexing on lists", hash(None) == hash(None))
