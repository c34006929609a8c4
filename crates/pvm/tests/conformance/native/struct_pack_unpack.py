# struct: pack/unpack round trips for every standard-size format code and byte order.
import struct

for order in "<>!=":
    for code, vals in [
        ("b", [0, 1, -1, 127, -128]),
        ("B", [0, 1, 255, 128]),
        ("h", [0, 1, -1, 32767, -32768, 258]),
        ("H", [0, 1, 65535, 258]),
        ("i", [0, 1, -1, 2**31 - 1, -2**31, 16909060]),
        ("I", [0, 1, 2**32 - 1, 16909060]),
        ("l", [0, -1, 2**31 - 1, -2**31]),
        ("L", [0, 2**32 - 1]),
        ("q", [0, 1, -1, 2**63 - 1, -2**63, 72623859790382856]),
        ("Q", [0, 1, 2**64 - 1, 2**63, 72623859790382856]),
        ("?", [True, False]),
        ("e", [0.0, -0.0, 1.5, -2.0, 65504.0, 0.1, 6e-8, 1e-8, float("inf"), float("-inf")]),
        ("f", [0.0, 1.5, -2.25, 0.1, 3.4028234663852886e38, float("inf"), 1e-45]),
        ("d", [0.0, -0.0, 1.5, 0.1, 1e308, -1e-308, 5e-324, float("inf")]),
    ]:
        fmt = order + code
        for v in vals:
            packed = struct.pack(fmt, v)
            back = struct.unpack(fmt, packed)
            print(fmt, repr(v), packed.hex(), back, struct.calcsize(fmt))

# Mixed formats, repeat counts, whitespace, pad bytes, chars, strings, pascal strings.
print(struct.pack("<2?2x2c", 1, 0, b"a", b"b"))
print(struct.unpack("<2?2x2c", b"\x00\x05xxab"))
print(struct.pack(">ihb3sx", 1, -2, 3, b"abc"))
print(struct.unpack(">ihb3sx", struct.pack(">ihb3sx", 1, -2, 3, b"abc")))
print(struct.pack("< i  h\t\nq", 1, 2, 3))
print(struct.pack("<3s", b"abcdef"), struct.pack("<6s", b"ab"), struct.pack("<0s", b"ab"))
print(struct.pack("<s", bytearray(b"ab")), struct.pack("<4s", bytearray(b"xy")))
print(struct.pack("<5p", b"abcdefg"), struct.pack("<5p", b"ab"), struct.pack("<1p", b"ab"))
print(struct.pack("<0p", b"ab"), struct.pack("<300p", b"a" * 299)[:3])
print(struct.unpack("<5p", b"\x09abcd"), struct.unpack("<5p", b"\x02abcd"))
print(struct.unpack("<?", b"\x02"), struct.unpack("<3?", b"\x00\x01\xff"))
print(struct.unpack("<0s", b""), struct.pack("<0i"), struct.unpack("<0i", b""))
print(struct.pack("<f", 1), struct.pack("<d", True), struct.pack("<?", []), struct.pack("<?", [0]))
print(struct.pack("<e", 65519.0), struct.pack("<e", float("nan")), struct.pack(">e", 1.0))
print(struct.unpack("<e", b"\x00\x7c"), struct.unpack("<e", b"\x01\x00"), struct.unpack(">e", b"\x3c\x00"))
print(struct.unpack("<d", struct.pack("<d", float("nan")))[0] != 0.0)
print(struct.pack("<4B", *b"\x01\x02\x03\x04"), struct.unpack("<4B", b"\x01\x02\x03\x04"))
print(struct.pack(b"<h", 5), struct.unpack(b">h", b"\x00\x05"))
print(struct.pack("<qQ", -2**63, 2**64 - 1).hex(), struct.unpack("<qQ", b"\xff" * 16))


class Idx:
    def __index__(self):
        return 7


class Flt:
    def __float__(self):
        return 2.5


print(struct.pack("<i", Idx()), struct.pack("<Q", Idx()), struct.pack("<d", Flt()), struct.pack("<f", Idx()))

# calcsize.
for fmt in ["<", "<x", "<c", "<10s 2i", "<2x3x", ">q", "!5p", "=e", "<999999999999999999i", b"<i"]:
    print(repr(fmt), struct.calcsize(fmt))
