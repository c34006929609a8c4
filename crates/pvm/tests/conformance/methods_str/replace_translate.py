"""str.replace (count, empty pattern), translate/maketrans forms, format_map and str.__mod__ basics."""
s = "the cat sat on the mat"
print(s.replace("at", "og"), s.replace("at", "og", 2), s.replace("the", ""), s.replace("", "-"), "".replace("", "x"))
print("aaa".replace("a", "b", 0), "aaa".replace("a", "b", -1), "abc".replace("", "-", 2), "aaaa".replace("aa", "b"))
t = str.maketrans("abc", "xyz", "d")
print(sorted(t.items()), "abcdd".translate(t))
t2 = str.maketrans({"a": "1", "b": None, ord("c"): "cc"})
print(sorted(t2.items()), "abcabc".translate(t2))
print("hello".translate({ord("l"): "L", ord("o"): None}), "xyz".translate({}))
class Table:
    def __getitem__(self, k):
        if k == ord("q"):
            raise LookupError
        return k + 1
print("abq".translate(Table()))
for bad in [lambda: str.maketrans("ab", "x"), lambda: str.maketrans({"ab": 1}), lambda: str.maketrans(1),
            lambda: "a".translate({97: 3.5}), lambda: "a".replace("a"), lambda: "a".replace(1, "b")]:
    try:
        print(bad())
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
print("{name} is {age}".format_map({"name": "Ann", "age": 7}))
class Default(dict):
    def __missing__(self, key):
        return f"<{key}>"
print("{a} and {b}".format_map(Default(a=1)))
try:
    "{x}".format_map({})
except KeyError as e:
    print(type(e).__name__, e)
