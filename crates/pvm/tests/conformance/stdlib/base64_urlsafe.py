import base64

data = bytes([251, 255, 190, 62, 63])
print(base64.b64encode(data), base64.urlsafe_b64encode(data), base64.b64encode(data, altchars=b"*."))
print(base64.urlsafe_b64decode(base64.urlsafe_b64encode(data)) == data, base64.urlsafe_b64decode("-_-_"))
print(base64.b64decode(b"+/+/"), base64.b64decode(b"-_-_", altchars=b"-_"), base64.b64decode("*.*.", altchars="*."))
print(base64.urlsafe_b64decode(b"+/+/"), base64.urlsafe_b64decode("YWJj"))
try:
    base64.b64encode(b"x", altchars=b"-")
except AssertionError as e:
    print("AssertionError", e)
text = "héllo wörld".encode("utf-8")
token = base64.urlsafe_b64encode(text).rstrip(b"=")
print(token, base64.urlsafe_b64decode(token + b"=" * (-len(token) % 4)).decode("utf-8"))
lines = base64.encodebytes(bytes(range(100)))
print(lines)
print(base64.decodebytes(lines) == bytes(range(100)), base64.encodebytes(b""), base64.encodebytes(b"x" * 57).count(b"\n"))
for bad in [lambda: base64.encodebytes("x"), lambda: base64.decodebytes("eA==")]:
    try:
        bad()
    except TypeError as e:
        print("TypeError", e)
