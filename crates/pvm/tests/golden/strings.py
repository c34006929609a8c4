words = []
for i in range(300):
    words.append(f"w{i:03d}")
s = "-".join(words)
print(len(s), s.upper()[:20], s.count("w1"), "%s|%5.2f" % ("x", 2.5), "{:>8}".format("r"))
