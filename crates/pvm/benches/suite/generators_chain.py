"""Generator pipelines: chained generator functions, generator expressions, `yield from`
delegation, and an infinite generator consumed lazily."""


def numbers(n):
    i = 0
    while i < n:
        yield i
        i += 1


def squares(src):
    for x in src:
        yield x * x


def evens(src):
    for x in src:
        if x % 2 == 0:
            yield x


def windows(src, k):
    buf = []
    for x in src:
        buf.append(x)
        if len(buf) == k:
            yield tuple(buf)
            buf.pop(0)


def flatten(tree):
    for node in tree:
        if isinstance(node, list):
            yield from flatten(node)
        else:
            yield node


def collatz_lengths():
    n = 1
    while True:
        steps, m = 0, n
        while m != 1:
            m = m // 2 if m % 2 == 0 else 3 * m + 1
            steps += 1
        yield n, steps
        n += 1


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(2):
    total = sum(evens(squares(numbers(700000))))
    wsum = sum(a * b - c for a, b, c in windows(numbers(250000), 3))
    tree = [[i, [i + 1, [i + 2, i + 3]], i + 4] for i in range(50000)]
    flat = sum(flatten(tree))
    best = (0, 0)
    for n, steps in collatz_lengths():
        if steps > best[1]:
            best = (n, steps)
        if n >= 20000:
            break
    gen_expr = sum(x % 7 for x in (y * 3 for y in range(500000)) if x % 2)
    print(total, wsum, flat, best, gen_expr)
