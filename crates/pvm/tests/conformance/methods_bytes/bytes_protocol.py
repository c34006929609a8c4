"""bytes() and bytearray() constructors: __bytes__, __index__, iterables, buffers and errors."""

class WithBytes:
    def __bytes__(self):
        return b"from __bytes__"

class BadBytes:
    def __bytes__(self):
        return "not bytes"

class Idx:
    def __init__(self, n):
        self.n = n
    def __index__(self):
        return self.n

print(bytes(WithBytes()), bytes(3), bytes([65, 66, Idx(67)]), bytes(range(3)))
print(bytes(b"copy"), bytes(bytearray(b"ba")), bytes((x for x in [1, 2])), bytes())
print(bytearray(WithBytes()) if False else bytearray(b"x"), bytearray(2), bytearray([1, 2]))

class SubBytes(bytes):
    pass
sb = SubBytes(b"sub")
print(type(sb).__name__, sb, bytes(sb), type(bytes(sb)).__name__, sb + b"!", isinstance(sb, bytes))

def attempt(label, fn):
    try:
        print(label, fn())
    except (TypeError, ValueError, OverflowError) as e:
        print(label, type(e).__name__, e)

attempt("bad __bytes__", lambda: bytes(BadBytes()))
attempt("negative", lambda: bytes(-1))
attempt("item too big", lambda: bytes([256]))
attempt("item negative", lambda: bytearray([-1]))
attempt("item not int", lambda: bytes(["a"]))
attempt("float", lambda: bytes(1.5))
attempt("None", lambda: bytes(None))
attempt("float item", lambda: bytes([1.0]))

# bytes are immutable, bytearrays are not
b = b"abc"
def assign(obj, key, value):
    obj[key] = value
    return obj
attempt("item assign", lambda: assign(b, 0, 1))
ba = bytearray(b"abc")
ba[0] = 122
ba[1:2] = b"XYZ"
ba += b"!"
ba.extend([33, 63])
print(ba, len(ba), ba[0], ba[-1:], bytes(ba))
attempt("ba assign range", lambda: assign(ba, 0, 300))
attempt("ba assign str", lambda: assign(ba, slice(0, 1), "s"))

# comparisons and hashing
print(b"abc" == bytearray(b"abc"), b"abc" < b"abd", b"" < b"\x00", bytearray(b"b") > b"a")
print(hash(b"abc") == hash(b"abc"), b"a" in b"cat", 97 in b"cat", b"" in b"x")
attempt("unhashable", lambda: hash(bytearray(b"x")))
attempt("in int range", lambda: 300 in b"x")
