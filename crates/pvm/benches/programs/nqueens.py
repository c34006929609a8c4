# Backtracking search with sets and recursion: count 8-queens solutions repeatedly.
def solve(n, row, cols, d1, d2):
    if row == n:
        return 1
    count = 0
    for c in range(n):
        if c in cols or (row - c) in d1 or (row + c) in d2:
            continue
        cols.add(c)
        d1.add(row - c)
        d2.add(row + c)
        count += solve(n, row + 1, cols, d1, d2)
        cols.remove(c)
        d1.remove(row - c)
        d2.remove(row + c)
    return count

total = 0
for _ in range(6):
    total += solve(8, 0, set(), set(), set())
print(total)
