# Subclasses of builtin types: alternate constructors reached through an instance make the
# subclass (as through the class), bytearray subclasses hold their bytes and have every
# method, and the reprs of bytearray, set and frozenset subclasses name the subclass.
class D(dict): pass
class I(int): pass
class B(bytes): pass
class F(float): pass
class BA(bytearray): pass
print(type(D().fromkeys([1])).__name__, type(D.fromkeys([1])).__name__, D().fromkeys("ab", 0))
print(type(I(3).from_bytes(b"\x01", "big")).__name__, type(B(b"x").fromhex("00")).__name__)
print(type(F(1.0).fromhex("0x1p0")).__name__, type(B.fromhex("41")).__name__, B.fromhex("41"))
print(type(BA.fromhex("0a")).__name__, type(BA().fromhex("0a")).__name__, BA.fromhex("0a"))

class Bang(bytes):
    def __new__(cls, v):
        return super().__new__(cls, v + b"!")
print(Bang.fromhex("41"))

x = BA(b"ab")
print(x, x.upper(), len(x), x == b"ab", isinstance(x, bytearray), bytes(x))
class Sized(bytearray):
    def __init__(self, n):
        super().__init__(b"x" * n)
        self.n = n
y = Sized(3)
y.append(65)
y.extend(b"BC")
print(y, y.n, y.decode(), y.find(b"A"), type(y + b"c").__name__, type(y[0:1]).__name__)
print(BA(5), BA("h\u00e9", "utf-8"), str(BA(b"s")), [BA(b"l")])
try:
    BA("text")
except TypeError as e:
    print("TypeError", e)

class S(set): pass
class FS(frozenset): pass
print(S(), S({1}), FS(), FS({2}), repr(S([3])), str(FS([4])), [S({5})])
class L(list): pass
class DD(dict): pass
print(L([1]), DD(a=1))
# (CPython's reprs add the object's address, which the PVM leaves out.)
for m in (dict.fromkeys, int.from_bytes, bytes.fromhex, {}.fromkeys, BA.fromhex):
    print(repr(m).split(" at 0x")[0].rstrip(">"))
print(bytearray.maketrans(b"a", b"b") == bytes.maketrans(b"a", b"b"), BA.maketrans(b"a", b"z"))
