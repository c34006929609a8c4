import base64

for data in [b"", b"f", b"fo", b"foo", b"foob", b"fooba", b"foobar", bytes(range(256))[:20], b"\xff\xfe\xfd"]:
    enc = base64.b64encode(data)
    print(data[:8], enc, base64.b64decode(enc) == data, base64.standard_b64encode(data) == enc)
print(base64.b64decode("Zm9vYmFy"), base64.b64decode(bytearray(b"Zm9v")))
print(base64.b64encode(bytearray(b"hi")), base64.standard_b64decode("aGk="))
print(base64.b64decode("Zm9v\nYmFy"), base64.b64decode("Zm9v!!YmFy"), base64.b64decode("Zg==Zm9v"), base64.b64decode("YW*Jj"))
print(base64.b64decode("ab==cd"), base64.b64decode("Zm8=\n"))
for bad in ["abc", "abcde", "ab=c", "a", "=", "Zg="]:
    try:
        base64.b64decode(bad)
    except ValueError as e:
        print(type(e).__name__, isinstance(e, ValueError), e)
for bad in ["a!b=", "=abc", "Zg==Zg==", "Zm=9", "Zg===", "Zm9v"]:
    try:
        print(base64.b64decode(bad, validate=True))
    except ValueError as e:
        print(type(e).__name__, e)
for bad in [lambda: base64.b64encode("x"), lambda: base64.b64decode(3), lambda: base64.b64decode("é"),
            lambda: base64.b64encode(None)]:
    try:
        bad()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
