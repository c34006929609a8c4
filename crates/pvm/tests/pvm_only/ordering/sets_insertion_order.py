print({3, 1, 2})
s = set()
for x in [10, 5, 7, 5, 1]:
    s.add(x)
print(s, list(s))
print({"b", "a", "c"})
print({3, 1} | {2, 0})
print(frozenset([9, 8, 7]))
