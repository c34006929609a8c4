m = [[i * j for j in range(4)] for i in range(3)]
print(m, [x for row in m for x in row if x % 2 == 0])
print({k: v for k, v in zip("abc", range(3))}, {x % 3 for x in range(10)} == {0, 1, 2})
print({(i, j): i + j for i in range(2) for j in range(2)})
x = "outer"; _ = [x for x in range(3)]; print(x)
print([(a, b) for a in range(3) for b in range(a)])
print(sorted({w.lower() for w in "The the THE cat Cat".split()}))
