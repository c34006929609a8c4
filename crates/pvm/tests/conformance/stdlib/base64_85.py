# base64: Ascii85 (a85encode/a85decode with every option), Base85, and the limits of both.
import base64

data = [b"", b"a", b"ab", b"abc", b"abcd", b"\0\0\0\0", b"\0\0", b"    ", b"  ", b"\xff" * 9,
        bytes(range(0, 256, 7)), b"hello world", bytearray(b"xyz!")]
for d in data:
    a = base64.a85encode(d)
    b = base64.b85encode(d)
    print(a, base64.a85encode(d, pad=True), base64.a85encode(d, foldspaces=True), b,
          base64.b85encode(d, pad=True), base64.a85decode(a) == d, base64.b85decode(b) == d)
long = bytes(range(40))
print(base64.a85encode(long, wrapcol=10))
print(base64.a85encode(long, adobe=True, wrapcol=12))
print(base64.a85encode(b"abcd", adobe=True, wrapcol=7), base64.a85encode(b"a", adobe=True, wrapcol=1))
print(base64.a85encode(b"abcd", adobe=True), base64.a85encode(b"", adobe=True))
print(base64.a85decode("<~@:E_W~>", adobe=True), base64.a85decode(b"@:E_W~>", adobe=True))
print(base64.a85decode(b"z"), base64.a85decode(b"y", foldspaces=True), base64.a85decode("@:E _W\n"))
print(base64.a85decode(b"@:E_Wx", ignorechars=b"x"), base64.a85decode(b"@:"), base64.a85decode(b"s8W-!"))
print(base64.b85decode("VPa!sWo"), base64.b85decode(b"VPa"), base64.b85decode(b""), base64.b85decode("|NsC0"))
for call in (lambda: base64.a85decode(b"abz"), lambda: base64.a85decode(b"aby", foldspaces=True),
             lambda: base64.a85decode(b"y"), lambda: base64.a85decode(b"ab~cd"),
             lambda: base64.a85decode(b"s8W-\""), lambda: base64.a85decode(b"<~ab", adobe=True),
             lambda: base64.a85decode("é"), lambda: base64.a85decode(5),
             lambda: base64.a85encode("text"), lambda: base64.b85encode(3),
             lambda: base64.b85decode(b"ab\"cd"), lambda: base64.b85decode(b"|NsC1"),
             lambda: base64.b85decode(b"00000|NsC1"), lambda: base64.b85decode([1])):
    try:
        print(call())
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
print(base64.MAXLINESIZE, base64.MAXBINSIZE, base64.bytes_types, sorted(base64.__all__))
with open("/tmp/b64_in.bin", "wb") as f:
    f.write(bytes(range(200)))
with open("/tmp/b64_in.bin", "rb") as i, open("/tmp/b64_out.txt", "wb") as o:
    base64.encode(i, o)
with open("/tmp/b64_out.txt", "rb") as f:
    encoded = f.read()
print(encoded == base64.encodebytes(bytes(range(200))), encoded.count(b"\n"))
with open("/tmp/b64_out.txt", "rb") as i, open("/tmp/b64_back.bin", "wb") as o:
    base64.decode(i, o)
with open("/tmp/b64_back.bin", "rb") as f:
    print(f.read() == bytes(range(200)))
