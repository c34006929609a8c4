"""chr/ord/ascii/bin/hex/oct/repr: ranges, errors and user __index__."""
print(chr(65), chr(0x263A), chr(0x1F600) == "\U0001F600", ord("A"), ord("\u00e9"), ord("\U0001F600"), ord(b"z"), ord(bytearray(b"\x00")))
print(ascii("plain"), ascii("é"), ascii("\u263a"), ascii("\U0001F600"), ascii(["é", "\n"]), ascii({"k": "\x7f"}))
print(bin(10), bin(-10), hex(255), hex(-1), oct(8), oct(-8), bin(0), hex(0), oct(0), hex(2**64))
class I:
    def __index__(self):
        return 42
print(bin(I()), hex(I()), oct(I()), chr(I()), [0] * 3 if False else "skip")
def attempt(label, fn):
    try:
        print(label, repr(fn()))
    except (TypeError, ValueError, OverflowError) as e:
        print(label, type(e).__name__, e)
attempt("chr neg", lambda: chr(-1))
attempt("chr big", lambda: chr(0x110000))
attempt("chr str", lambda: chr("a"))
attempt("chr float", lambda: chr(65.0))
attempt("ord long", lambda: ord("ab"))
attempt("ord empty", lambda: ord(""))
attempt("ord int", lambda: ord(5))
attempt("ord bytes long", lambda: ord(b"ab"))
attempt("hex float", lambda: hex(1.5))
attempt("bin str", lambda: bin("1"))
print(repr("a'b"), repr('a"b'), repr("a'b\"c"), repr("\t\r\n\\"), repr("\x00\x1f\x7f\x80\xa0\xad"), repr("\u2028\ufeff"))
print([chr(i) for i in range(0x41, 0x46)], "".join(map(chr, [72, 105])), sorted("bca", key=ord), max("abc", key=ord))
