# struct: Struct objects, unpack_from / pack_into / iter_unpack with offsets.
import struct

s = struct.Struct("<ih")
print(s.format, s.size, type(s).__name__, type(s).__module__, struct.Struct(b">q").format)
print(s.pack(1, 2), s.unpack(b"\x01\x00\x00\x00\x02\x00"))
print(s.unpack_from(b"xx\x01\x00\x00\x00\x02\x00", 2), s.unpack_from(b"\x05\x00\x00\x00\x06\x00zz"))
print(s.unpack_from(buffer=b"\x05\x00\x00\x00\x06\x00", offset=0))
ba = bytearray(10)
print(s.pack_into(ba, 2, -1, -2), ba)
s.pack_into(ba, -6, 7, 8)
print(ba)
print(list(s.iter_unpack(b"\x01\x00\x00\x00\x02\x00\x03\x00\x00\x00\x04\x00")))
print(struct.Struct(format="<i").size, isinstance(s, struct.Struct))

print(struct.unpack_from("<i", b"abcdef", 2), struct.unpack_from("<i", b"abcdef", offset=1))
print(struct.unpack_from("<i", buffer=b"abcdef", offset=2), struct.unpack_from("<h", b"abcdef", -2))
print(struct.unpack_from("<i", bytearray(b"abcdef")))
ba = bytearray(6)
print(struct.pack_into("<i", ba, 1, 5), ba)
struct.pack_into(">h", ba, -2, 258)
print(ba)
struct.pack_into("<2s", ba, 0, b"zz")
print(ba)

it = struct.iter_unpack("<h", b"abcdef")
print(type(it).__name__, it.__length_hint__(), next(it), it.__length_hint__())
print(list(it), it.__length_hint__(), list(it))
print(iter(it) is it)
for t in struct.iter_unpack(">HB", b"\x00\x01\x02\x00\x03\x04"):
    print(t)


class S(struct.Struct):
    def __init__(self):
        super().__init__(">H")

    def double(self, n):
        return self.pack(2 * n)


x = S()
print(x.size, x.pack(5), x.format, x.double(4), isinstance(x, struct.Struct))
x.extra = 1
print(x.extra)
print(struct.error.__name__, struct.error.__module__, issubclass(struct.error, Exception))
try:
    raise struct.error("custom")
except struct.error as e:
    print("caught", e)
