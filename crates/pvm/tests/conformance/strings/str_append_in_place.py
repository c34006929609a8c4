# `s += t` on a local str appends in place when nothing else holds `s`: every way another
# reference can exist must still see the old text, and the appended string must index,
# search, hash and compare like one built at once (ASCII, non-ASCII, crossing the offset-mark
# stride of 32 chars in every order).


def build(pieces):
    s = ""
    for p in pieces:
        s += p
    return s


def check(pieces):
    s = build(pieces)
    whole = "".join(pieces)
    assert s == whole and hash(s) == hash(whole) and len(s) == len(whole)
    for i in range(0, len(s), 7):
        assert s[i] == whole[i], (i, s[i], whole[i])
        assert s[i:i + 9] == whole[i:i + 9]
        assert s.find(whole[i], i) == whole.find(whole[i], i)
    assert s[::-1] == whole[::-1] and s.upper() == whole.upper()
    return len(s)


print(check(["ab"] * 40))
print(check(["ab"] * 40 + ["é"] + ["cd"] * 30))
print(check(["é"] * 10 + ["x"] * 100 + ["ü€"] * 25))
print(check(["€" * 31, "a", "b", "€" * 33, "ascii tail" * 5]))
print(check(["日本語"] * 50 + [""] * 3 + ["z"]))


def aliases():
    s = "base"
    t = s
    s += "-more"
    print(t, s)
    seen = [s]
    s += "!"
    print(seen, s)
    d = {s: 1}
    s += "?"
    print(d, s in d, s[:-1] in d)
    k = "key" * 3
    k += "x"
    d2 = {k: 1}
    print(d2[("key" * 3) + "x"])


def closure():
    s = "c"

    def inner():
        return s

    for i in range(3):
        s += str(i)
    return s, inner()


def walrus():
    s = "ab"
    s += (s := "zz") + "!"
    return s


def raises():
    s = "keep"
    try:
        s += 1
    except TypeError as e:
        print("TypeError:", e)
    return s


def gen():
    s = ""
    for i in range(5):
        s += str(i)
        yield s


class Box:
    def __init__(self):
        self.s = "attr"


aliases()
print(closure(), walrus(), raises(), list(gen()))
b = Box()
t = b.s
b.s += "+"
print(b.s, t)
g = "global"
h = g
g += "+"
print(g, h)
lst = ["x"]
lst[0] += "y"
print(lst)
