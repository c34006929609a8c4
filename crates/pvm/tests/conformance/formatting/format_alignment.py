"""Text alignment and padding with fill characters, centring rules, and wide (non-ASCII) text."""
for s in ["", "a", "ab", "abc", "é", "日本", "\U0001F600x"]:
    print(repr(s), "|" + format(s, "*<6") + "|" + format(s, "*>6") + "|" + format(s, "*^6") + "|" + format(s, "*^7") + "|" + s.center(6, ".") + "|" + s.center(7, ".") + "|")
table = [("apple", 3, 1.5), ("kiwi", 12, 0.25), ("watermelon", 1, 12.0)]
print(f"{'name':<12}{'qty':>5}{'price':>8}")
for n, q, p in table:
    print(f"{n:<12}{q:>5d}{p:>8.2f}")
print(f"{'total':<12}{sum(q for _, q, _ in table):>5d}{sum(q * p for _, q, p in table):>8.2f}")
print("%-10s|%10s|" % ("left", "right"), "{:-^20}".format(" mid "), "{:0>5}".format("7"), "{:0<5}".format("7"), "{:=>5}".format(-7))
print(format(-12, "0=8"), format(-12, "*=8"), format(12.5, "0=+10.2f"), format("x", "\u00b7^5"), format(3, "\U0001F600>4"))
