"""strip family, padding (ljust/rjust/center/zfill), expandtabs, case methods and removeprefix."""
s = "xxhixx"
print(s.strip("x"), s.lstrip("x"), s.rstrip("x"), "  \t hi \n".strip(), "abcba".strip("ab"), "hi".strip(""))
print(repr("hi".center(7, "*")), repr("hi".center(6)), repr("hi".center(1)), repr("abc".center(6, "-")))
print(repr("hi".ljust(5, ".")), repr("hi".rjust(5)), repr("42".zfill(6)), repr("-42".zfill(6)), repr("+x".zfill(4)), repr("".zfill(3)))
print(repr("a\tbc\tdef\tg".expandtabs()), repr("a\tb".expandtabs(4)), repr("ab\n\tc".expandtabs(2)), repr("\t".expandtabs(0)))
for w in ["hello world", "HELLO", "hELLo wOrld", "they're bill's", "123abc def", "ß", ""]:
    print(repr(w), w.upper(), w.lower(), w.title(), w.capitalize(), w.swapcase(), w.casefold())
print("TestCase".removeprefix("Test"), "TestCase".removesuffix("Case"), "abc".removeprefix("x"), "abc".removesuffix(""))
for bad in [lambda: "a".center(5, "ab"), lambda: "a".ljust(5, ""), lambda: "a".strip(1),
            lambda: "a".zfill("3"), lambda: "a".removeprefix(None), lambda: "a".center()]:
    try:
        print(bad())
    except TypeError as e:
        print(type(e).__name__, e)
print("a".center(-3), "b".ljust(0), "Straße".upper(), "İ".lower() == "i\u0307", "ǅ".swapcase())
