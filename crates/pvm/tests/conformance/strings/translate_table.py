# str.translate with a dict table: absent keys, deletions, int and str answers, repeated
# ASCII chars (answered from the per-call memo after their first lookup), non-ASCII chars,
# and the errors a bad answer raises at its first use.
t = {ord("a"): "xyz", ord("b"): None, ord("c"): ord("C"), ord("d"): "", ord("é"): "e",
     ord("z"): 0x1F600, ord("q"): "ü"}
for s in ["", "abcd", "aaaa bbbb cccc dddd", "zebra quiz", "élan éé", "plain text",
          "abcabcabc" * 20, "ü and ñ"]:
    r = s.translate(t)
    print(repr(r), len(r))

# A subclass of dict is still a mapping looked up per char.
class D(dict):
    pass

print("hello".translate(D({104: "H", 111: None})))

# Non-dict tables are subscripted: str and list tables, LookupError keeps the char.
print("abc\x05".translate("ABCDEFGHIJ"), "abz".translate([None] * 98 + ["B"]))

# The same table used by many calls: each call's memo starts empty.
tab = str.maketrans("abc", "bca", "x")
s = "abcx" * 5
for _ in range(3):
    s = s.translate(tab)
    print(s)

# Errors raised by an answer are raised at the char that asks, also after earlier chars
# were answered from the memo.
for bad in ({ord("b"): -1}, {ord("b"): 0x110000}, {ord("b"): 1.5}, {ord("b"): b"x"}):
    try:
        print("aaab".translate(bad))
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)

# Keys that are equal to ints but are not ints.
print("ab".translate({97.0: "F", True: "T"}), "\x01a".translate({True: "T"}))
