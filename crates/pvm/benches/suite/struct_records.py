"""Binary records with struct: packing and unpacking fixed-layout records, iter_unpack over a
buffer, a checksum over bytes, and building a bytearray incrementally."""
import struct

REC = struct.Struct("<IhqdB3s")


def pack_all(n):
    buf = bytearray()
    for i in range(n):
        buf += REC.pack(i, (i % 65536) - 32768, i * 1000003, i / 3.0, i % 256, b"abc")
    return bytes(buf)


def checksum(data):
    a, b = 1, 0
    for byte in data:
        a = (a + byte) % 65521
        b = (b + a) % 65521
    return (b << 16) | a


def summarise(data):
    total = 0
    fsum = 0.0
    for rid, short, big, f, small, tag in REC.iter_unpack(data):
        total += rid + short + big % 1000 + small + len(tag)
        fsum += f
    return total, round(fsum, 3)


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(2):
    data = pack_all(520000)
    s = summarise(data)
    head = struct.unpack_from("<IhqdB3s", data, REC.size * 7)
    mixed = [struct.pack(">HIQ", i % 65536, i, i * i) for i in range(80000)]
    unpacked = sum(struct.unpack(">HIQ", m)[2] % 97 for m in mixed)
    print(len(data), s, head, unpacked, checksum(data[:1500000]))
