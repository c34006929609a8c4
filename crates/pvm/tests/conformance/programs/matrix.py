def matmul(a, b):
    return [[sum(x * y for x, y in zip(row, col)) for col in zip(*b)] for row in a]
def transpose(m): return [list(r) for r in zip(*m)]
def identity(n): return [[int(i == j) for j in range(n)] for i in range(n)]
def det(m):
    if len(m) == 1: return m[0][0]
    return sum((-1) ** j * m[0][j] * det([r[:j] + r[j + 1:] for r in m[1:]]) for j in range(len(m)))
a = [[1, 2], [3, 4]]; b = [[5, 6], [7, 8]]
print(matmul(a, b), transpose(a), matmul(a, identity(2)) == a, det([[2, 0, 1], [1, 3, 2], [1, 1, 1]]))
def mpow(m, k):
    r = identity(len(m))
    while k:
        if k & 1: r = matmul(r, m)
        m = matmul(m, m); k >>= 1
    return r
print(mpow([[1, 1], [1, 0]], 90)[0][1])
print([[round(x / 3, 3) for x in row] for row in a])
