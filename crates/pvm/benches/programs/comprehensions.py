# Comprehensions: list, dict and set comprehensions, nested.
total = 0
for r in range(40):
    grid = [[(i * j + r) % 17 for j in range(100)] for i in range(100)]
    flat = [v for row in grid for v in row if v > 3]
    idx = {i: row[i] for i, row in enumerate(grid)}
    uniq = {v for v in flat}
    total += len(flat) + sum(idx.values()) + len(uniq)
print(total)
