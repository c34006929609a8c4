import string

for name in ["ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits",
             "octdigits", "punctuation", "printable", "whitespace"]:
    value = getattr(string, name)
    print(name, repr(value), len(value))
print(all(c in string.printable for c in string.ascii_letters + string.digits))
print("".join(c for c in "Hello, World! 123" if c in string.ascii_letters))
print(sorted(set(string.hexdigits.lower())) == sorted(set("0123456789abcdef")))
print([c for c in "a1-B2_" if c in string.punctuation])
print("Template" in string.__all__, "capwords" in string.__all__)
