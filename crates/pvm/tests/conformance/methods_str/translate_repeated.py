# str.translate with a dict table over long texts: the table's answer for each ASCII char is
# remembered within a call, so every kind of answer (a code point, a string, None, a missing
# key) and non-ASCII chars must come out as with a lookup per char.
table = {ord("a"): "xy", ord("b"): None, ord("c"): ord("C"), 0x263A: "smile", ord("é"): "e",
         ord("d"): "", ord("\n"): "\\n"}
text = "abcabcdé☺\n" * 50 + "zzz"
out = text.translate(table)
print(len(out), out[:80], out.count("xy"), out.count("smile"))
print(("hello world " * 100).translate(str.maketrans("lo", "01", " ")).count("0"))
big = {i: i + 1 for i in range(128)}
print("".join(chr(i) for i in range(128)).translate(big) == "".join(chr(i + 1) for i in range(128)))
colliding = {97 + j * (2**61 - 1): j for j in range(1, 6)}
colliding[97] = "A"
print(("a" * 30 + "b").translate(colliding))
for bad in [{97: -1}, {97: 0x110000}, {97: 1.5}, {97: b"x"}]:
    try:
        ("xa" * 20).translate(bad)
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
print("aaa".translate({}), "".translate(table), "é☺é".translate(table))
