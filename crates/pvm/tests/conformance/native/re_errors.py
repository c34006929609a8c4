import re

for pat in ["(", "a)", "[a", "*a", "a{2,1}", r"\1", "(?P<1>a)", "(?<=a+)b", "(?P<x>a)(?P<x>b)", "a**", r"\p"]:
    try:
        re.compile(pat)
        print("ok", pat)
    except re.error as e:
        print(repr(pat), "|", e, "|", e.pos, e.msg)
try:
    re.match("a", b"a")
except TypeError as e:
    print(e)
try:
    re.match(b"a", "a")
except TypeError as e:
    print(e)
m = re.match("(a)", "a")
for g in [2, "x", -1]:
    try:
        m.group(g)
    except IndexError as e:
        print("IndexError", e)
print(issubclass(re.error, Exception), re.error.__name__)
re.compile("(a")
