"""int.to_bytes/int.from_bytes: byteorder, signed, lengths, defaults (3.11) and overflow errors."""
for n in [0, 1, 255, 256, 65535, -1, -128, -129, 2**63, -(2**63), 10**30]:
    try:
        b = n.to_bytes(16, "big", signed=True)
        print(n, b.hex(), int.from_bytes(b, "big", signed=True), n.to_bytes(16, "little", signed=True)[:3])
    except OverflowError as e:
        print(n, type(e).__name__, e)
print((1024).to_bytes(2, "big"), (1024).to_bytes(2, "little"), (5).to_bytes(), (0).to_bytes(0, "big"))
print(int.from_bytes(b"\x01\x00", "big"), int.from_bytes(b"\x01\x00", "little"), int.from_bytes(b"\xff", "big", signed=True))
print(int.from_bytes([1, 2, 3], "big"), int.from_bytes(bytearray(b"\x80"), byteorder="big", signed=True), int.from_bytes(b""))
print(int.from_bytes(b"\x00" * 10 + b"\x01", "big"), int.from_bytes(b"\xff" * 9, "little", signed=True))
def attempt(label, fn):
    try:
        print(label, fn())
    except (OverflowError, ValueError, TypeError) as e:
        print(label, type(e).__name__, e)
attempt("too big", lambda: (256).to_bytes(1, "big"))
attempt("negative unsigned", lambda: (-1).to_bytes(2, "big"))
attempt("signed overflow", lambda: (128).to_bytes(1, "big", signed=True))
attempt("bad order", lambda: (1).to_bytes(1, "middle"))
attempt("negative length", lambda: (1).to_bytes(-1, "big"))
attempt("from str", lambda: int.from_bytes("ab", "big"))
attempt("from bad order", lambda: int.from_bytes(b"a", "sideways"))
attempt("length float", lambda: (1).to_bytes(1.0, "big"))
class MyInt(int):
    pass
print(type(MyInt.from_bytes(b"\x02", "big")).__name__, MyInt.from_bytes(b"\x02", "big"))
print((True).to_bytes(1, "big"), (2**100).to_bytes(13, "big").hex())
