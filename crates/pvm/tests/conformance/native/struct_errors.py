# struct: errors (struct.error, TypeError, OverflowError) with CPython's messages.
import struct


def show(f):
    try:
        print("ok", repr(f()))
    except Exception as e:
        print(type(e).__module__, type(e).__name__, e)


for order in "<>!=":
    for code in "bBhHiIlLqQ":
        fmt = order + code
        for v in [128, -129, 256, -1, 32768, -32769, 65536, 2**31, -2**31 - 1, 2**32, 2**63,
                  -2**63 - 1, 2**64, 2**100, -2**100, "x", 1.0, None]:
            try:
                struct.pack(fmt, v)
            except Exception as e:
                print(fmt, repr(v), type(e).__name__, e)

for fmt, v in [("<f", 1e300), ("<e", 1e10), ("<e", 65520.0), ("<f", "x"), ("<d", None),
               ("<e", []), ("<c", b"ab"), ("<c", "a"), ("<c", bytearray(b"a")), ("<c", 1),
               ("<s", "a"), ("<p", 1), ("<3s", "abc"), ("<f", 3.4028236e38), ("<d", 2**2000)]:
    show(lambda: struct.pack(fmt, v))

show(lambda: struct.pack("<i"))
show(lambda: struct.pack("<i", 1, 2))
show(lambda: struct.pack("<3i", 1, 2))
show(lambda: struct.pack("<z", 1))
show(lambda: struct.pack())
show(lambda: struct.pack(1))
for fmt in ["<3", "<i3", "<3 i", "< 3i", "<99999999999999999999i", "<9999999999999999999i", "<i<",
            "<n", "<N", "<P", "<i@", "<é", "<ié\u20acx", "<\U0001f600"]:
    show(lambda: struct.calcsize(fmt))
show(lambda: struct.calcsize(1))
show(lambda: struct.calcsize())
show(lambda: struct.unpack("<i", b"abc"))
show(lambda: struct.unpack("<i", b"abcde"))
show(lambda: struct.unpack("<i", "abcd"))
show(lambda: struct.unpack("<i", 5))
show(lambda: struct.unpack("<i"))
show(lambda: struct.unpack("<i", b"1234", b"x"))
show(lambda: struct.unpack_from("<i", b"abcdef", 3))
show(lambda: struct.unpack_from("<i", b"abcdef", -1))
show(lambda: struct.unpack_from("<i", b"abcdef", -7))
show(lambda: struct.unpack_from("<i", b"abcdef", 7))
show(lambda: struct.unpack_from("<i"))
show(lambda: struct.unpack_from("<i", b"1234", 0, 1))
show(lambda: struct.unpack_from("<i", b"1234", "x"))
ba = bytearray(6)
show(lambda: struct.pack_into("<i", ba, 3, 1))
show(lambda: struct.pack_into("<i", ba, -3, 1))
show(lambda: struct.pack_into("<i", ba, -7, 1))
show(lambda: struct.pack_into("<i", ba, 7, 1))
show(lambda: struct.pack_into("<i", b"123456", 0, 1))
show(lambda: struct.pack_into("<i", ba, 0))
show(lambda: struct.pack_into("<i", ba))
show(lambda: struct.pack_into("<i", ba, "x", 1))
show(lambda: struct.pack_into("<i", ba, 0, "x"))
print(ba)
show(lambda: list(struct.iter_unpack("<h", b"abcde")))
show(lambda: list(struct.iter_unpack("<", b"")))
show(lambda: list(struct.iter_unpack("<0s", b"")))
show(lambda: struct.iter_unpack("<i"))
show(lambda: struct.Struct())
show(lambda: struct.Struct(1))
show(lambda: struct.Struct("<z"))
show(lambda: struct.Struct(fmt="<i"))
s = struct.Struct("<ih")
show(lambda: s.pack(1))
show(lambda: s.unpack(b"123"))
show(lambda: s.unpack_from(b"123"))
show(lambda: s.pack_into(bytearray(3), 0, 1, 2))
show(lambda: list(s.iter_unpack(b"1234567")))
for attr in ["format", "size", "other"]:
    try:
        setattr(s, attr, 3)
        print("set", attr)
    except AttributeError:
        print("AttributeError", attr)
struct.pack("<h", 40000)
