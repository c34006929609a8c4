# str.encode: UTF-8, ASCII and Latin-1 with their aliases, error handlers, CPython's messages.
for s in ["abc", "é", "aé€", "😀x", ""]:
    print(repr(s), s.encode(), s.encode("utf-8"), s.encode("UTF8"), s.encode(encoding="utf_8"))
    for enc in ["ascii", "latin-1", "latin1", "iso-8859-1", "L1"]:
        for errors in ["strict", "ignore", "replace"]:
            try:
                print(" ", enc, errors, s.encode(enc, errors))
            except UnicodeEncodeError as e:
                print(" ", enc, errors, type(e).__name__, e)
print("é".encode(encoding="latin_1", errors="strict"))
print("é".encode("latin-1").decode("latin-1") == "é")
print(b"\xe9".decode("latin-1").encode("latin-1"))
for bad in ["nope", "utf-9"]:
    try:
        "x".encode(bad)
    except LookupError as e:
        print(type(e).__name__, e)
try:
    "x".encode(5)
except TypeError as e:
    print("TypeError")
try:
    "\xff".encode("ascii")
except ValueError as e:  # UnicodeEncodeError is a ValueError
    print(isinstance(e, UnicodeError), e)
