"""str predicates on mixed text, str(), repr() quoting, comparison, multiplication and membership."""
vals = ["", " ", "abc", "ABC", "Abc", "abc123", "123", "1.5", "\u00bd", "\u0663", "a b", "_id", "1id", "id_1",
        "class", "\t\n", "Hello World", "hello World", "\u00e9t\u00e9", "x\u0301"]
for v in vals:
    print(ascii(v), [int(getattr(v, m)()) for m in ["isalpha", "isalnum", "isdigit", "isdecimal", "isnumeric",
          "isspace", "isupper", "islower", "istitle", "isidentifier", "isprintable", "isascii"]])
print(repr("it's"), repr('say "hi"'), repr("both ' and \""), repr("\\"), repr("\x00\x7f\u200b\U0001f600"), str("x"))
print("abc" < "abd", "abc" < "ab", "B" < "a", "\u00e9" > "z", "a" * 3, 2 * "ab", "x" * 0, "x" * -1)
print("ab" in "cabd", "" in "", "ba" not in "abc", "abc"[::-1], "abc"[5:], "abcdef"[1:5:2], "abc"[-10:2])
for bad in [lambda: "a" + 1, lambda: "a" * "b", lambda: "a" < 1, lambda: 1 in "a", lambda: "abc"[5], lambda: "abc"["x"]]:
    try:
        print(bad())
    except (TypeError, IndexError) as e:
        print(type(e).__name__, e)
print(len("\U0001f600ab"), ord("\U0001f600"), chr(128512) == "\U0001f600", "Ab".__len__(), str(b"x"), str(None))
s = "mutable?"
try:
    s[0] = "M"
except TypeError as e:
    print(type(e).__name__, e)
