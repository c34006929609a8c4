"""**kwargs and *args mechanics: order preservation, copying, passing through, and name conflicts."""
def collect(*args, **kwargs):
    return args, kwargs
print(collect(3, 1, 2, z=1, a=2, m=3))
def passthrough(*args, **kwargs):
    return collect(*args, "extra", **kwargs, last=True)
print(passthrough(1, k="v"))
opts = {"sep": "-", "end": "!\n"}
print("a", "b", **opts)
def modifies(**kw):
    kw["added"] = 1
    return kw
src = {"x": 0}
print(modifies(**src), src)
def named(a, b, **rest):
    return a, b, rest
print(named(b=1, a=2, c=3), named(*[1], **{"b": 2, "z": 0}))
def self_kw(self, **kw):
    return kw
print(self_kw(0, self_=1))
try:
    named(1, 2, a=3)
except TypeError as e:
    print(type(e).__name__, e)
def count_args(*a, **k):
    return len(a), len(k)
print(count_args(*range(5), **dict.fromkeys("abc")), count_args(*"xy", *"z"))
def key_order(**kw):
    return list(kw)
print(key_order(z=1, y=2, x=3), key_order(**{"b": 1}, a=2))
