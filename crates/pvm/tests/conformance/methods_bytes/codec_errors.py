"""bytes.decode / bytearray.decode / str.encode / str(b, enc) / bytes(s, enc) with errors=."""

samples = [b"plain", b"\xff", b"a\xe2\x82", b"a\xe2\x82x", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
           b"\xc0\xaf", b"ok\xff\xfe", "caf\u00e9 \u20ac".encode()]
for data in samples:
    row = []
    for errors in ["strict", "replace", "backslashreplace", "ignore"]:
        try:
            row.append(ascii(data.decode("utf-8", errors)))
        except UnicodeDecodeError as e:
            row.append(f"{type(e).__name__}: {e}")
    print(data, "|", " | ".join(row))

for data in [b"ascii only", b"a\xff\xfeb"]:
    for errors in ["strict", "replace", "backslashreplace", "ignore"]:
        try:
            print("ascii", errors, ascii(data.decode("ascii", errors)))
        except UnicodeDecodeError as e:
            print("ascii", errors, e)
print(ascii(b"\xe9\xff".decode("latin-1")), ascii(bytearray(b"\xe9").decode("l1")))

text = "a\u00e9\u20ac\U0001F600b"
for enc in ["ascii", "latin-1", "utf-8", "utf-8-sig"]:
    for errors in ["strict", "replace", "backslashreplace", "xmlcharrefreplace", "ignore"]:
        try:
            print(enc, errors, text.encode(enc, errors))
        except UnicodeEncodeError as e:
            print(enc, errors, type(e).__name__, e)

# the exception objects carry CPython's five fields
try:
    b"xy\xffz".decode("utf-8")
except UnicodeDecodeError as e:
    print(e.encoding, e.object, e.start, e.end, e.reason, e.args)
    print(isinstance(e, UnicodeError), isinstance(e, ValueError))
try:
    "\u00ff\u0100".encode("latin-1")
except UnicodeEncodeError as e:
    print(e.encoding, ascii(e.object), e.start, e.end, e.reason)
try:
    "\u0100\u0101x".encode("ascii")
except UnicodeEncodeError as e:
    print(e)
e = UnicodeDecodeError("ascii", b"\x80\x81", 0, 2, "custom reason")
print(e, "|", e.start, e.end)

# keyword arguments and the constructors
print(b"\xffA".decode(errors="replace"), b"x".decode(encoding="ascii"))
print("\u00e9".encode(encoding="latin-1"), "\u00e9".encode(errors="strict"))
print(str(b"\xffabc", "utf-8", "ignore"), str(b"abc", encoding="ascii"), str(bytearray(b"hi"), "utf-8"))
print(bytes("\u00e9t\u00e9", "latin-1"), bytearray("x\u20ac", "ascii", "replace"), bytes("\u00e9", encoding="utf-8"))

def attempt(label, fn):
    try:
        print(label, fn())
    except (TypeError, LookupError, UnicodeError) as e:
        print(label, type(e).__name__, e)

attempt("no encoding", lambda: bytes("abc"))
attempt("int with encoding", lambda: bytes(5, "utf-8"))
attempt("unknown encoding", lambda: "x".encode("no-such-codec"))
attempt("unknown decode", lambda: b"x".decode("klingon"))
attempt("bad handler, clean data", lambda: b"clean".decode("utf-8", "bogus"))
attempt("bad handler, dirty data", lambda: b"\xff".decode("utf-8", "bogus"))
attempt("str of str with encoding", lambda: str("abc", "utf-8"))
attempt("str of int with encoding", lambda: str(5, "utf-8"))
attempt("encoding spellings", lambda: ["x".encode(n) for n in ["UTF8", "utf_8", "U8", "Latin_1", "ISO-8859-1", "US-ASCII", "646"]])
attempt("utf-8-sig roundtrip", lambda: "\ufeffhi".encode("utf-8").decode("utf-8-sig"))
