"""List, dict and set comprehensions: matrix multiply and transpose by comprehension, nested
filters, dict inversion and flattening."""


def matmul(a, b):
    bt = [list(col) for col in zip(*b)]
    return [[sum(x * y for x, y in zip(row, col)) % 1000003 for col in bt] for row in a]


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(2):
    n = 140
    a = [[(i * j + 1) % 97 for j in range(n)] for i in range(n)]
    b = [[(i + 2 * j) % 89 for j in range(n)] for i in range(n)]
    c = matmul(a, b)
    c = matmul(c, a)
    flat = [x for row in c for x in row if x % 3]
    squares = {i: i * i for i in range(500000) if i % 7}
    inverse = {v: k for k, v in squares.items() if v % 5 == 1}
    evens = {x // 2 for x in flat if x % 2 == 0}
    nested = [[j for j in range(i % 50) if j % 3] for i in range(50000)]
    print(sum(flat) % 1000003, len(squares), len(inverse), len(evens), sum(map(len, nested)))
