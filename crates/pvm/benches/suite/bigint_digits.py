"""Big-integer arithmetic within the PVM's 4096-bit limit: pi and e to 1,100 digits with
fixed-point integers (Machin's formula, a factorial series), integer square roots by Newton's
method, and Fibonacci numbers by fast doubling modulo a 2000-bit modulus (products stay under 4096 bits)."""

DIGITS = 1100
SCALE = 10 ** (DIGITS + 10)


def arctan_inv(x):
    total = term = SCALE // x
    x2 = x * x
    n = 1
    sign = -1
    while term:
        term //= x2
        total += sign * (term // (2 * n + 1))
        sign = -sign
        n += 1
    return total


def pi():
    return (16 * arctan_inv(5) - 4 * arctan_inv(239)) // 10 ** 10


def e():
    total = term = SCALE
    k = 1
    while term:
        term //= k
        total += term
        k += 1
    return total // 10 ** 10


def isqrt(n):
    x = 1 << ((n.bit_length() + 1) // 2)
    while True:
        y = (x + n // x) // 2
        if y >= x:
            return x
        x = y


M = (1 << 2000) - 1899


def fib_mod(n):
    a, b = 0, 1
    for bit in bin(n)[2:]:
        c = a * ((2 * b - a) % M) % M
        d = (a * a + b * b) % M
        a, b = (d, (c + d) % M) if bit == "1" else (c, d)
    return a


out = 0
for _ in range(55):
    p, ee = pi(), e()
    out += int(str(p)[-6:]) + int(str(ee)[-6:])
roots = sum(isqrt(2 * 10 ** (2 * k)) % 1000 for k in range(100, 600, 5))
fibs = sum(fib_mod(n) % 1000000007 for n in range(10 ** 6, 10 ** 6 + 3000))
print(str(p)[:20], str(ee)[:20], out, roots, fibs)
