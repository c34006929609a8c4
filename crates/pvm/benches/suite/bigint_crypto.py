"""Big-integer number theory: Miller-Rabin primality with modular pow, extended Euclid for
modular inverses, and textbook RSA encrypt/decrypt round trips on 512-bit keys."""


def is_probable_prime(n):
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in (2, 3, 5, 7, 11, 13, 17):
        x = pow(a, d, n)
        if x == 1 or x == n - 1:
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def next_prime(n):
    n |= 1
    while not is_probable_prime(n):
        n += 2
    return n


def egcd_inverse(a, m):
    old_r, r = a, m
    old_s, s = 1, 0
    while r:
        q = old_r // r
        old_r, r = r, old_r - q * r
        old_s, s = s, old_s - q * s
    return old_s % m


seed = 0x9E3779B97F4A7C15F39CC0605CEDC8341082276BF3A27251F86C6A11D0C18E95
keys = []
for i in range(8):
    p = next_prime((seed * (i + 3)) % (1 << 256) | (1 << 255))
    q = next_prime((seed * (i + 7) * 31) % (1 << 256) | (1 << 255))
    n, phi = p * q, (p - 1) * (q - 1)
    e = 65537
    d = egcd_inverse(e, phi)
    keys.append((n, e, d))
ok = 0
for n, e, d in keys:
    for m in range(2, 130):
        c = pow(m * 0x1234567, e, n)
        if pow(c, d, n) == m * 0x1234567:
            ok += 1
print(ok, [k[0] % 1000003 for k in keys])
