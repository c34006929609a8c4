"""str(): on builtins, user __str__/__repr__ fallbacks, errors of bad __str__, and str subclasses."""
class OnlyRepr:
    def __repr__(self):
        return "OnlyRepr()"
class Both:
    def __str__(self):
        return "str-form"
    def __repr__(self):
        return "repr-form"
class BadStr:
    def __str__(self):
        return 42
class S(str):
    def shout(self):
        return self.upper() + "!"
print(str(OnlyRepr()), str(Both()), repr(Both()), [Both()], f"{Both()}", f"{Both()!r}", "%s" % Both())
print(str(1), str(-1.5), str(True), str([1, "a"]), str((1,)), str({"k": "v"}), str({1}), str(frozenset()), str(range(3)))
print(str(1e16), str(1e-5), str(0.1 + 0.2), str(2**64), str(-0.0), str(float("nan")), str(float("-inf")))
try:
    str(BadStr())
except TypeError as e:
    print(type(e).__name__, e)
s = S("hey")
print(s.shout(), type(s).__name__, isinstance(s, str), s == "hey", s + "!", type(s + "!").__name__, type(s.upper()).__name__)
print(str(s), type(str(s)).__name__, repr(s), len(s), s[0], type(s[0]).__name__, hash(s) == hash("hey"))
print(repr(str()), str(""), str(object=5), str(b"ab", "ascii"))
