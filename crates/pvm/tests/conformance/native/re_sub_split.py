import re

print(re.sub(r"\s+", " ", "a   b \t\n c"))
print(re.sub(r"(\w+)@(\w+)", r"\2 at \1", "joe@home ann@work"))
print(re.sub(r"(?P<n>\d)", r"<\g<n>\g<0>>", "a1b2"))
print(re.sub("a", "b", "aaaa", count=2), re.subn("a", "b", "aaaa"))
print(re.sub(r"\d", lambda m: str(int(m.group()) * 2), "1 2 3 9"))
print(re.sub("x*", "-", "abxd"))
print(re.sub(r"\n", r"\\n", "a\nb"), re.sub("", "|", "ab"))
print(re.split(r"\W+", "Words, words, words."))
print(re.split(r"(\W+)", "Words, words, words."))
print(re.split(r"\W+", "Words, words, words.", 1), re.split(r"\W+", "Words, words, words.", maxsplit=1))
print(re.split("[a-f]+", "0a3B9", flags=re.IGNORECASE), re.split(r"\b", "one two"))
print(re.split(r"x*", "axbc"), re.split("(a)|(b)", "1a2b3"))
print(re.escape("a.b*c?d(e)[f]{g}^$|\\ +h-i#j k~"), re.escape(b"a.b"))
print(re.compile(r"o").sub("0", "foo boo", 1), re.compile(r"o").subn("0", "foo"))
try:
    re.sub(r"(a)", r"\2", "a")
except re.error as e:
    print("error", e)
try:
    re.sub("a", r"\g<x>", "a")
except Exception as e:
    print(type(e).__name__, e)
print(re.sub(b"a", b"c", b"banana"), re.sub(r"(?i)B", "x", "abcB"))
