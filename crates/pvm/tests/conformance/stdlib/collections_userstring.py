# collections.UserString: a Sequence over self.data with str's methods; text results keep
# the subclass.
from collections import UserString
from collections.abc import Sequence


class Tag(UserString):
    pass


s = UserString("Hello World")
t = Tag("abc")
print(s, repr(s), len(s), s[0], s[-5:], type(s[1:]).__name__, isinstance(s, Sequence))
print(s == "Hello World", s == UserString("Hello World"), s < "I", s <= s, s > "A", s >= t)
print(hash(s) == hash("Hello World"), "World" in s, UserString("lo") in s, s.data)
print(s + "!", "<" + s, s + UserString("?"), s + 5, 5 + t, s * 2, 2 * t, type(2 * t).__name__)
print(UserString("%s-%d") % ("a", 1), int(UserString("42")), float(UserString("1.5")))
print(UserString(42), UserString(UserString("x")), UserString([1]), Tag(t))
for name in ("capitalize", "casefold", "lower", "upper", "swapcase", "title", "strip",
             "lstrip", "rstrip"):
    r = getattr(Tag("  mIxEd Case "), name)()
    print(name, repr(r), type(r).__name__)
print(s.center(15, "*"), s.ljust(13, "."), s.rjust(13), s.zfill(13), Tag("a\tb").expandtabs(4))
print(s.count("o"), s.count(UserString("l"), 3), s.find("o"), s.find(UserString("W")), s.rfind("o"))
print(s.index("W"), s.rindex("o"), s.startswith("Hell"), s.endswith(("x", "ld")), s.split())
print(s.rsplit("o", 1), s.partition(" "), s.rpartition("o"), Tag("a\nb").splitlines(True))
print(s.replace("l", "L", 2), s.replace(UserString("World"), UserString("There")))
print(s.removeprefix("Hello "), s.removesuffix(UserString("World")), s.encode(),
      s.encode(None, None), UserString("é").encode("latin-1"))
print(UserString("{0}-{x}").format(1, x=2), UserString("{a}").format_map({"a": 3}),
      UserString("-").join(["a", "b"]), type(UserString("-").join("ab")).__name__)
print([UserString(c).isalpha() for c in "a1 "], UserString("12").isdigit(),
      UserString("12").isdecimal(), UserString("12").isnumeric(), UserString("ab").isalnum())
print(UserString("ab").islower(), UserString("AB").isupper(), UserString(" ").isspace(),
      UserString("Ab Cd").istitle(), UserString("x1").isidentifier(),
      UserString("a").isascii(), UserString("\x00").isprintable())
table = UserString.maketrans("ab", "xy")
print(UserString("aabbc").translate(table), type(Tag("a").translate(table)).__name__)
print(list(s)[:3], list(reversed(t)), t.count("a"), sorted(Tag("cab")), s.index("o", 5))
for call in (lambda: s.index("zz"), lambda: s.rindex("zz"), lambda: int(s), lambda: s[99],
             lambda: s.center(), lambda: UserString()):
    try:
        call()
    except (ValueError, IndexError, TypeError) as e:
        print(type(e).__name__, e)
