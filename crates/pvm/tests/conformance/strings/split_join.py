csv = "name,age,city\nann,31,paris\nbob,,rome\n"
rows = [line.split(",") for line in csv.strip().split("\n")]
print(rows)
hdr, *data = rows
print([dict(zip(hdr, r)) for r in data])
print(" | ".join(f"{h:^8}" for h in hdr))
print("a b\tc\n d".split(), "a,b,c".split(",", 1), "  x  ".split(" "), "".split(","), "abc".split("abc"))
print("one two three".split(maxsplit=1), "1.2.3".rsplit(".", maxsplit=1), "line1\r\nline2\rline3".splitlines(True))
