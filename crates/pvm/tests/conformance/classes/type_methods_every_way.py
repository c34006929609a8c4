# Alternate constructors and static methods of the builtin types, reached through the class,
# an instance, a subclass and its instance, and listed by dir() and the class __dict__.
class B(bytes):
    pass


class BA(bytearray):
    pass


class D(dict):
    pass


class S(str):
    pass


print(dict.fromkeys("ab"), {}.fromkeys("ab", 0), type(D().fromkeys("a")).__name__)
print(int.from_bytes(b"\x01\x00", "big"), (5).from_bytes(b"\x02", "little"))
print(True.from_bytes(b"\x01", "big"), bool.from_bytes(b"\x00", "big"))
print(float.fromhex("0x1.8p1"), (1.5).fromhex("0x1p-1"))
print(bytes.fromhex("6162"), b"".fromhex("63"), type(B.fromhex("61")).__name__)
print(bytearray.fromhex("6162"), bytearray(b"x").fromhex("63"), type(BA(b"").fromhex("61")).__name__)
print(str.maketrans("ab", "cd") == "".maketrans("ab", "cd") == S("q").maketrans("ab", "cd"))
print(len(bytes.maketrans(b"a", b"b")), len(b"zz".maketrans(b"a", b"b")))
print(len(bytearray.maketrans(b"a", b"b")), len(bytearray(b"q").maketrans(b"a", b"b")))
for t in (int, bool, float, bytes, bytearray, str, dict):
    names = [n for n in ("fromkeys", "from_bytes", "fromhex", "maketrans") if n in dir(t)]
    own = [n for n in names if n in t.__dict__] if t is not bool else "inherited"
    print(t.__name__, names, own)
print(hasattr(1, "from_bytes"), hasattr("", "maketrans"), hasattr([], "fromkeys"))
for call in (
    lambda: bytearray.maketrans(b"a"),
    lambda: bytearray(b"").maketrans(b"a", b"b", x=1),
    lambda: bytes.fromhex(),
    lambda: "".maketrans(),
    lambda: {}.fromkeys(),
    lambda: (1).from_bytes(),
):
    try:
        call()
    except TypeError as e:
        print("TypeError:", e)
