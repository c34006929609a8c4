s = "naïve café ☃ 日本"
print(len(s), s.upper(), s[6:10], s[::-1], s.encode("utf-8"), len(s.encode()))
print([c for c in "日本"], ord("日"), chr(26085), "\u65e5" == "日", "é" == "e\u0301", sorted("bäa"))
print("Ω".lower(), "ǅ".upper(), "ß".lower(), "ﬁ".upper(), "İ".casefold() == "i̇", "Σ".lower())
print(s.isascii(), "abc".isascii(), "١٢٣".isdigit(), "½".isnumeric(), "x²".isalnum(), "\u2003".isspace())
print(repr("tab\tnew\nquote'\"back\\"), ascii("日本é"), repr("\x00\x7f\u200b"))
