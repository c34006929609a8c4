"""Nested comprehensions with several for/if clauses, conditional expressions, and equivalent loops."""
matrix = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
print([v for row in matrix for v in row if v % 2], [[row[i] for row in matrix] for i in range(3)])
print([v if v % 2 else -v for row in matrix for v in row], [(r, c) for r in range(3) for c in range(3) if r == c if r > 0])
print({(a, b) for a in range(3) for b in range(3) if a + b == 2} == {(0, 2), (1, 1), (2, 0)})
print({k: [x for x in range(k)] for k in range(4) if k != 2})
words = ["apple", "banana", "cherry", "date"]
print({w[0]: len(w) for w in words}, sorted({len(w) for w in words}), [w.upper() for w in words if "a" in w if len(w) > 4])
pyth = [(a, b, c) for c in range(1, 21) for b in range(1, c) for a in range(1, b) if a * a + b * b == c * c]
print(pyth)
loop = []
for row in matrix:
    for v in row:
        if v % 3 == 0:
            loop.append(v * 2)
print(loop == [v * 2 for row in matrix for v in row if v % 3 == 0])
flat = [ch for w in words for ch in w if ch in "aeiou"]
print(len(flat), "".join(flat))
print([[x * y for x in range(1, 4)] for y in range(1, 4)], sum(sum(r) for r in matrix))
print([(i, s) for i, s in enumerate("abc") if i != 1], dict(zip("xy", [v for v in range(2)])))
