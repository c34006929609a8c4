"""str.split/rsplit/splitlines/partition/rpartition/join: separators, maxsplit and errors."""
s = "  a  b\tc\n d  "
print(s.split(), s.split(" "), s.split(None, 1), s.rsplit(None, 1), s.split(" ", 2), s.rsplit(" ", 2))
print("a,b,,c,".split(","), "a,b,,c,".rsplit(",", 1), "a,b".split(",", 0), "".split(), "".split(","))
print("x".split("x"), "xx".split("x"), "abc".split("abc"), "a--b--c".split("--", maxsplit=1), "a b".split(sep=None))
print("one\ntwo\r\nthree\rfour\x0bfive\x0csix\x1cseven\x1dx\x1ey\x85z\u2028w\u2029v".splitlines())
print("a\nb\n".splitlines(True), "a\r\n".splitlines(keepends=True), "".splitlines(), "\n".splitlines())
print("k=v=w".partition("="), "k=v=w".rpartition("="), "kvw".partition("="), "kvw".rpartition("="))
print(",".join(["a", "b"]), "".join([]), "-".join("abc"), " ".join(x for x in ("p", "q")), ", ".join({"k": 1}))
for bad in [lambda: ",".join([1, 2]), lambda: ",".join(["a", None]), lambda: "a".split(""),
            lambda: "a".partition(""), lambda: "a".rsplit(""), lambda: "a".split(1), lambda: ",".join(5)]:
    try:
        print(bad())
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
print("a b c".split(maxsplit=-1), "a b c".split(maxsplit=1), "a b c".rsplit(maxsplit=1))
