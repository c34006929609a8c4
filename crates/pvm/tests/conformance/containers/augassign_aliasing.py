# Augmented assignment on a mutable container mutates it in place (`x op= y` calls
# `x.__iop__`), so every other reference sees the change; on an immutable one it rebinds the
# name only. Checked for every in-place operator of set, list, dict, bytearray, with the
# operand kinds each accepts and refuses.


def show(label, before, after, alias):
    print(label, before is after, alias)


for op in ("|=", "&=", "-=", "^="):
    a = {1, 2, 3}
    c = a
    method = {"|=": a.__ior__, "&=": a.__iand__, "-=": a.__isub__, "^=": a.__ixor__}[op]
    r = method({2, 5})
    print(op, r is a, sorted(c))

a = {1, 2, 3}
c = a
a -= {2}
show("set -=", a, c, sorted(c))
a |= {9}
show("set |=", a, c, sorted(c))
a &= {1, 9, 4}
show("set &=", a, c, sorted(c))
a ^= {1, 7}
show("set ^=", a, c, sorted(c))
a -= a
show("set -= self", a, c, sorted(c))
for bad in ([1], (1,), "ab", {1: 2}.keys()):
    s = {1, 2}
    t = s
    try:
        s -= bad
        print("ok", sorted(s), s is t)
    except TypeError as e:
        print("TypeError:", e)
s = {1, 2}
t = s
s |= frozenset({3})
print(sorted(s), s is t, type(s).__name__)

f = frozenset({1, 2})
g = f
f |= {3}
print(sorted(f), sorted(g), f is g, type(f).__name__)

l = [1]
m = l
l += [2]
l += (3,)
l += range(4, 6)
l += "ab"
l *= 2
print(l is m, m)
l *= 0
print(l is m, m)
try:
    l += 5
except TypeError as e:
    print("TypeError:", e)

d = {1: 2}
e = d
d |= {3: 4}
d |= [(5, 6)]
print(d is e, e)
try:
    d |= 5
except TypeError as ex:
    print("TypeError:", ex)

b = bytearray(b"a")
bb = b
b += b"c"
b += bytearray(b"d")
b *= 2
print(b is bb, bb)

t = (1,)
u = t
t += (2,)
print(t, u, t is u)


def local_alias():
    s = {1}
    keep = s
    for i in range(5):
        s |= {i}
        s -= {0}
    return sorted(keep), keep is s


print(local_alias())


class Holder:
    def __init__(self):
        self.items = [1]
        self.tags = {"a"}


h = Holder()
items, tags = h.items, h.tags
h.items += [2]
h.tags |= {"b"}
print(items, sorted(tags))
box = [{1}]
inner = box[0]
box[0] |= {2}
print(sorted(inner), box[0] is inner)

for x, y in ((1, "a"), (1.5, None), ("s", 2.0), ([1], 2.5), (None, None)):
    for op in ("-", "**", "@", "//", "<<", "|"):
        try:
            z = x
            if op == "-":
                z -= y
            elif op == "**":
                z **= y
            elif op == "@":
                z @= y
            elif op == "//":
                z //= y
            elif op == "<<":
                z <<= y
            else:
                z |= y
        except TypeError as e:
            print("TypeError:", e)
