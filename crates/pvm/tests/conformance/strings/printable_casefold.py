s = "".join(chr(c) for c in [0, 9, 0x1f, 0x20, 0x7e, 0x7f, 0x80, 0x9f, 0xa0, 0xa1, 0xad, 0x378, 0x600, 0x85, 0x2028, 0x2029, 0x200b, 0x2003, 0x3000, 0xe000, 0xfeff, 0xfffe, 0x1f600, 0xe0001, 0xf0000, 0x10ffff, 0x1d173, 0x110bd, 0x1fa7c, 0x1faf8, 0x31350, 0x2ebf0])
print(repr(s))
print(ascii(s))
print([c.isprintable() for c in s])
print("%r" % s, f"{s!r}", repr([s]), repr({s: s}))
n = 0
for c in list(range(0, 0xd800, 7)) + list(range(0xe000, 0x30000, 7)):
    if chr(c).isprintable():
        n += c
print(n)
print(sum(1 for c in list(range(0xd800)) + list(range(0xe000, 0x10000)) if chr(c).isprintable()), "".isprintable(), "a\u200bb".isprintable())
words = ["straße", "ΣΊΣΥΦΟΣ", "ﬁne", "ᏸ", "İstanbul", "ς", "ŉ", "ǰ", "ẞ", "Ꭰ", "ꭰ", "µ", "ſ", "ΐ", "ᾈ", "ﬃ", "𐐀", "ABC", ""]
for w in words:
    print(repr(w), repr(w.casefold()), repr(w.lower()), w.casefold() == w.upper().casefold())
t = 0
for c in list(range(0xd800)) + list(range(0xe000, 0x20000)):
    f = chr(c).casefold()
    if f != chr(c):
        t += c * len(f) + ord(f[-1])
print(t)
