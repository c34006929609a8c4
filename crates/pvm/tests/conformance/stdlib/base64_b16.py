import base64

for data in [b"", b"\x00", b"\x01\x02\xab\xcd\xef", b"hello"]:
    enc = base64.b16encode(data)
    print(data, enc, base64.b16decode(enc) == data)
print(base64.b16decode("48656C6C6F"), base64.b16decode(b"4a4B", casefold=True), base64.b16decode(bytearray(b"FF")))
for bad in ["abc", "ABC", "4G", "4a"]:
    try:
        base64.b16decode(bad)
    except ValueError as e:
        print(type(e).__name__, e)
try:
    base64.b16encode("x")
except TypeError as e:
    print("TypeError", e)
print(base64.b16encode(bytes(range(16))), bytes.fromhex(base64.b16encode(b"\x12\x34").decode()))
