# struct: native size and alignment (no prefix or '@') depends on the platform's C types, so
# the PVM rejects it with struct.error; '=' is standard sizes in little-endian order.
import struct

for fmt in ["i", "@i", "", "@", "3s", "P"]:
    try:
        struct.calcsize(fmt)
        print("accepted", repr(fmt))
    except struct.error as e:
        print(repr(fmt), e)
for f in [lambda: struct.pack("h", 1), lambda: struct.unpack("h", b"\x00\x01"),
          lambda: struct.Struct("q"), lambda: struct.unpack_from("@b", b"\x01"),
          lambda: struct.pack_into("I", bytearray(4), 0, 1), lambda: struct.iter_unpack("i", b"")]:
    try:
        f()
    except struct.error:
        print("struct.error")
print(struct.pack("=i", 1), struct.pack("=e", 1.0), struct.calcsize("=q"))
struct.pack("i", 1)
