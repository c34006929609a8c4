"""Bytes work: run-length and base64 encoding round trips, hex conversion, bytearray
editing in place, bytes.translate/replace/split, and a CRC-32 table computed in Python."""
import base64


def crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table.append(c)
    return table


TABLE = crc_table()


def crc32(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def rle(data):
    out = bytearray()
    i = 0
    while i < len(data):
        j = i
        while j < len(data) and data[j] == data[i] and j - i < 255:
            j += 1
        out.append(j - i)
        out.append(data[i])
        i = j
    return bytes(out)


def unrle(data):
    out = bytearray()
    for i in range(0, len(data), 2):
        out += bytes([data[i + 1]]) * data[i]
    return bytes(out)


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(2):
    blob = bytes((i // 7 * 31 + i // 50) % 256 for i in range(1000000))
    packed = rle(blob)
    assert unrle(packed) == blob
    b64 = base64.b64encode(blob)
    back = base64.b64decode(b64)
    hexed = blob[:100000].hex()
    edited = bytearray(blob)
    for i in range(0, len(edited), 3):
        edited[i] ^= 0x5A
    swapped = bytes(edited).translate(bytes(range(255, -1, -1)))
    parts = swapped.replace(b"\x00", b"").split(b"\xff")
    print(len(packed), crc32(blob), back == blob, len(hexed), crc32(swapped), len(parts))
