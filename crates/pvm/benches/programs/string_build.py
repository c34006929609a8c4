# String-heavy: slicing, concatenation, join, split, replace, formatting.
parts = []
for i in range(60000):
    s = "item-" + str(i)
    if s.endswith("7"):
        s = s.upper()
    parts.append(s[1:] + ":" + s[:3])
text = ",".join(parts)
fields = text.split(",")
print(len(text), len(fields), fields[12345])
total = 0
for f in fields:
    total += len(f.replace("-", "").lower())
print(total)
print(f"{total:>12,}")
