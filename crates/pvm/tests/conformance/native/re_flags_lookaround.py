import re

print(re.findall("abc", "ABC abc aBc", re.I), re.findall("(?i)abc", "ABC"))
print(re.findall(r"^\w+", "one\ntwo\nthree", re.M), re.findall(r"^\w+", "one\ntwo"))
print(re.findall(r"\w+$", "one\ntwo\n", re.M), re.search(r"a.b", "a\nb"), re.search(r"a.b", "a\nb", re.S).group())
v = re.compile(r"""
    (\d+)   # number
    \s*     # space
    ([a-z]+) # unit
""", re.VERBOSE)
print(v.match("12 kg").groups(), v.flags & re.X != 0)
print(re.findall(r"\w+", "héllo wörld"), re.findall(r"\w+", "héllo wörld", re.A))
print(int(re.I), int(re.M), int(re.S), int(re.X), int(re.A), int(re.U), int(re.IGNORECASE | re.MULTILINE))
print(re.findall(r"\w+(?=!)", "hi! there yo!"), re.findall(r"\b\w+\b(?!!)", "hi! there yo!"))
print(re.findall(r"(?<=\$)\d+", "cost $30 or $45"), re.findall(r"(?<!\$)\b\d+", "cost $30 or 45"))
print(re.search(r"(\w)\1", "abccd").group(), re.search(r"(?P<c>\w)(?P=c)", "xyzzy").group())
print(re.match(r"(a|b)*c", "ababc").group(1), re.match(r"(?:ab)+", "ababx").group())
print(re.findall(r"a{2,3}", "aaaaaaa"), re.findall(r"a{2,3}?", "aaaaaaa"), re.findall(r"<.*?>", "<a><b>"))
print(re.match(r"(?s:.)(.)", "\n\n", re.S).groups(), re.findall(r"[^\d\s]+", "ab 12 cd"))
print(re.search(r"\Aab\Z", "ab").group(), re.search(r"\Bb", "ab").start())
print(re.match(r"(?:(a)|b)+", "ab").groups(), re.findall(r"[\u00e0-\u00ff]", "àbé"))
print(re.match(r"(?i)straße", "STRASSE"), re.match(r"(?i)ǅ", "ǆ") is not None)
print(re.search(r"(a)?(?(1)a|b)", "b").group(), re.match(r"(<)?(\w+)(?(1)>)", "<user>").group())
