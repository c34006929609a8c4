# re.RegexFlag: the flag constants are IntFlag members printing as re.NAME, usable as ints.
import re

print(repr(re.I), str(re.I), repr(re.I | re.M), str(re.M | re.S), repr(re.NOFLAG))
print(repr(re.RegexFlag(0)), repr(re.I | 1024), repr(re.RegexFlag(1024)), f"{re.I}")
print(format(re.I, ">4"), re.I + 0, re.I == 2, hash(re.I) == hash(2), isinstance(re.I, int))
print(type(re.I).__name__, re.RegexFlag.__module__, re.A is re.ASCII, re.RegexFlag["I"])
print(re.RegexFlag.IGNORECASE is re.I, re.RegexFlag(2) is re.I, re.I in (re.I | re.M))
print(repr(re.I & re.M), repr(re.I ^ re.I), repr(re.X | re.U), repr(re.DOTALL & 16))
print([type(f).__name__ for f in (re.I, re.M, re.S, re.X, re.A, re.U, re.NOFLAG)])
print(re.compile("a", re.I | re.M), re.compile("a", re.I).flags, re.compile(b"a", re.I).flags)
print(re.match("A", "a", re.I | re.S) is not None, re.findall("^x", "x\nx", flags=re.M))
print(re.sub("A", "-", "aA", flags=re.IGNORECASE), re.split("a", "1A2", flags=re.I))
print(re.search("(?i)B", "b").re.flags, re.compile("a", 2 | 8).flags)
