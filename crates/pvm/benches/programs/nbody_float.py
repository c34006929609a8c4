# Float-heavy: a small n-body simulation (no math module: sqrt via ** 0.5).
def advance(bodies, dt, steps):
    n = len(bodies)
    for _ in range(steps):
        for i in range(n):
            bi = bodies[i]
            for j in range(i + 1, n):
                bj = bodies[j]
                dx = bi[0] - bj[0]
                dy = bi[1] - bj[1]
                dz = bi[2] - bj[2]
                d2 = dx * dx + dy * dy + dz * dz
                mag = dt / (d2 * d2 ** 0.5)
                bm = bj[6] * mag
                bi[3] -= dx * bm
                bi[4] -= dy * bm
                bi[5] -= dz * bm
                bm = bi[6] * mag
                bj[3] += dx * bm
                bj[4] += dy * bm
                bj[5] += dz * bm
        for b in bodies:
            b[0] += dt * b[3]
            b[1] += dt * b[4]
            b[2] += dt * b[5]

def energy(bodies):
    e = 0.0
    n = len(bodies)
    for i in range(n):
        b = bodies[i]
        e += 0.5 * b[6] * (b[3] * b[3] + b[4] * b[4] + b[5] * b[5])
        for j in range(i + 1, n):
            c = bodies[j]
            dx = b[0] - c[0]
            dy = b[1] - c[1]
            dz = b[2] - c[2]
            e -= b[6] * c[6] / (dx * dx + dy * dy + dz * dz) ** 0.5
    return e

bodies = [
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 39.47],
    [4.84, -1.16, -0.10, 0.60, 2.81, -0.02, 0.037],
    [8.34, 4.12, -0.40, -1.01, 1.82, 0.008, 0.011],
    [12.89, -15.11, -0.22, 1.08, 0.86, -0.01, 0.0017],
    [15.37, -25.91, 0.17, 0.97, 0.59, -0.03, 0.002],
]
print("%.9f" % energy(bodies))
advance(bodies, 0.01, 20000)
print("%.9f" % energy(bodies))
