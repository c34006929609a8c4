"""str.encode defaults, bytes round trips, str.isascii, ascii() and the length of encodings."""
texts = ["plain", "caf\u00e9", "\u20ac100", "\U0001f600", "mixed \u00e9\u20ac\U0001f600", ""]
for t in texts:
    b = t.encode()
    print(ascii(t), b, len(t), len(b), b.decode() == t, t.isascii(), ascii(t), t.encode("utf-8-sig")[:3])
print("x".encode() == b"x", type("x".encode()).__name__, "\u00ff".encode("latin-1"), "abc".encode("ascii"))
print(ascii(["\u00e9", b"\xe9", 1.5, None]), ascii("\n\t\\"), ascii("\x7f\x80"))
print("%s %r %a" % ("\u00e9", "\u00e9", "\u00e9"))
e = "caf\u00e9"
print(f"{e!a}", f"{e!r:>10}", "{!a}".format("\u20ac"))
