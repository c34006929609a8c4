"""Float arithmetic in tight loops: a Mandelbrot set rendered to escape counts, and a
trapezoid integral of a polynomial."""


def mandel(w, h, limit):
    total = 0
    rows = []
    for y in range(h):
        ci = 2.0 * y / h - 1.0
        row = 0
        for x in range(w):
            cr = 3.0 * x / w - 2.0
            zr = zi = 0.0
            n = 0
            while n < limit and zr * zr + zi * zi <= 4.0:
                zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
                n += 1
            row += n
        rows.append(row)
        total += row
    return total, rows[h // 2]


def integral(a, b, steps):
    h = (b - a) / steps
    s = 0.0
    x = a
    for _ in range(steps):
        y0 = 0.5 * x * x * x - 2.0 * x + 1.0
        x1 = x + h
        y1 = 0.5 * x1 * x1 * x1 - 2.0 * x1 + 1.0
        s += (y0 + y1) * h / 2.0
        x = x1
    return s


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(3):
    print(mandel(220, 140, 300))
    print(round(integral(-3.0, 4.0, 400000), 6))
