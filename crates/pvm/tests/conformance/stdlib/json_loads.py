import json

print(json.loads('{"a": 1, "b": [1, 2.5, null, true, false], "c": "x"}'))
print(json.loads("[1, -2, 3.0, 1e5, -0, 1E+2, 2.5e-3, 12345678901234567890]"))
print(json.loads('"h\\u00e9llo \\"q\\" \\\\ \\n\\t \\ud834\\udd1e \\u20ac \\/ \\b\\f\\r"'))
print(repr(json.loads('"\\ud834"')), repr(json.loads('"\\udd1e\\ud834"')), json.loads('"\\u0041\\u0042"'))
print(json.loads("NaN"), json.loads("Infinity"), json.loads("-Infinity"), json.loads(" \n\t 7 \r\n"))
print(json.loads('{"a": 1, "a": 2}'), json.loads("[]"), json.loads("{}"), json.loads('[[[]], {"x": {}}]'))
print(json.loads(b'{"k": "v"}'), json.loads(bytearray(b"[1]")), json.loads('"\\u00e9"'.encode()), json.loads(b'\xef\xbb\xbf[2]'))
print(json.loads('"é€𝄞"'), json.loads('{"é": ["ü"]}'))
print(type(json.loads("1")).__name__, type(json.loads("1.0")).__name__, type(json.loads("1e2")).__name__)
print(json.loads("0"), json.loads("-0.0"), json.loads("1.5"), json.loads("[0.1, 100]"))
dec = json.JSONDecoder()
print(dec.decode(' {"a": [1]} '), dec.raw_decode('[1, 2] tail'), dec.raw_decode('xx"s"', 2))
print(json.loads('"a\tb"', strict=False), repr(json.loads('"\x00"', strict=False)))
roundtrip = {"nested": [{"x": [1, 2, {"y": None}]}], "u": "ü", "f": 0.1}
print(json.loads(json.dumps(roundtrip)) == roundtrip, json.loads(json.dumps(roundtrip, indent=3)) == roundtrip)
