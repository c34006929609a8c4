"""str.find/rfind/index/rindex/count/startswith/endswith with start/end arguments and errors."""
s = "abracadabra"
for sub in ["a", "bra", "z", "", "abracadabra", "aa"]:
    print(repr(sub), s.find(sub), s.rfind(sub), s.count(sub), s.find(sub, 2), s.rfind(sub, 0, 8),
          s.count(sub, 1, -1), s.find(sub, -4), s.find(sub, 20), s.count(sub, 5, 2))
print(s.index("c"), s.rindex("a"), s.index("a", 1), s.rindex("b", 0, 5))
for args in [("z",), ("a", 20), ("bra", 2, 4)]:
    try:
        s.index(*args)
    except ValueError as e:
        print("index", args, type(e).__name__, e)
    try:
        s.rindex(*args)
    except ValueError as e:
        print("rindex", args, type(e).__name__, e)
print(s.startswith("abra"), s.startswith("bra", 1), s.startswith(("x", "ab")), s.startswith("a", 20))
print(s.endswith("bra"), s.endswith("cad", 0, 7), s.endswith(("z", "ra")), s.endswith(""), "".endswith(""))
print(s.startswith("", 11), s.startswith("", 12), s.find("", 11), s.find("", 12), "".count(""), "abc".count(""))
for bad in [lambda: s.startswith(["a"]), lambda: s.find(1), lambda: s.count(None), lambda: s.endswith(("a", 1))]:
    try:
        bad()
    except TypeError as e:
        print(type(e).__name__, e)
print("ünïcödé".find("c"), "ünïcödé".rfind("é"), "日本語日本".count("日本"), "日本語".index("語"))
print(s.find("a", None, None), s.count("a", None, 5), s.index("a", -1))
