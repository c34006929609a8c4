"""assert (with and without message, side effects) and del of names, items, slices and attributes."""
def check(x):
    assert x > 0, f"expected positive, got {x}"
    return x
print(check(5))
for bad in [0, -3]:
    try:
        check(bad)
    except AssertionError as e:
        print(type(e).__name__, e, e.args)
try:
    assert False
except AssertionError as e:
    print("bare", repr(e), e.args)
try:
    assert [], ["a", "list", "message"]
except AssertionError as e:
    print("list message", e.args[0])
calls = []
def msg():
    calls.append(1)
    return "lazy"
assert True, msg()
print("message not evaluated:", calls)
x = 1
del x
try:
    x
except NameError as e:
    print(type(e).__name__, e)
lst = list(range(10))
del lst[0], lst[-1]
del lst[::3]
print(lst)
d = {"a": 1, "b": 2, "c": 3}
del d["a"], d["c"]
print(d)
class O:
    pass
o = O()
o.attr = 1
del o.attr
print(hasattr(o, "attr"))
a, b = 1, 2
del a, b
try:
    print(a)
except NameError as e:
    print(type(e).__name__, e)
try:
    del d["zz"]
except KeyError as e:
    print(type(e).__name__, e)
try:
    del lst[100]
except IndexError as e:
    print(type(e).__name__, e)
try:
    del o.nothing
except AttributeError as e:
    print(type(e).__name__, e)
t = (1, 2)
try:
    del t[0]
except TypeError as e:
    print(type(e).__name__, e)
