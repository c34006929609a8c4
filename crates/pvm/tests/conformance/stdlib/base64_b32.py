import base64

for data in [b"", b"f", b"fo", b"foo", b"foob", b"fooba", b"foobar", b"\x00\xff" * 3]:
    enc = base64.b32encode(data)
    hx = base64.b32hexencode(data)
    print(data, enc, hx, base64.b32decode(enc) == data, base64.b32hexdecode(hx) == data)
print(base64.b32decode("MZXW6===", casefold=False), base64.b32decode("mzxw6===", casefold=True))
print(base64.b32decode("MZXW6YQ=".replace("O", "0"), map01=b"L"), base64.b32decode("0000000=", map01="I") if False else "")
print(base64.b32decode(b"ME======"), base64.b32hexdecode("cpng====", casefold=True))
for bad in ["ABC", "ABCDEFG1", "mzxw6===", "MZXW6Y==", "M=======", "========"]:
    try:
        print(base64.b32decode(bad))
    except ValueError as e:
        print(type(e).__name__, e)
try:
    base64.b32encode("text")
except TypeError as e:
    print("TypeError", e)
