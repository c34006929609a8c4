"""Big ints below the PVM's 4096-bit cap: arithmetic, conversion, comparison, hashing, str round trips."""
a = 3 ** 1000
b = 2 ** 2000 - 1
print(len(str(a)), str(a)[:20], str(a)[-20:], a.bit_length(), b.bit_length(), b.bit_count())
print((a * a).bit_length(), (b // a).bit_length(), b % a % 1000007, -b // a % 97, divmod(b, 10**300)[1] % 1000)
print(int(str(a)) == a, int(hex(b), 16) == b, int(bin(a), 2) == a, int(oct(b), 8) == b, float(2**1000) == 2.0**1000)
print(a > b, a < b, a == 3 ** 1000, a != a + 1, max(a, b) is b, min(-a, -b) == -b, sorted([b, a, 1])[1] == a)
print(2**4000 // 2**3990, (2**4000 - 1) & 0xff, (1 << 4000) >> 3999, abs(-(2**3000)) == 2**3000)
print(sum(range(10**6)), sum([2**100] * 3), (10**100 + 1) % 7, pow(10**100, 3, 10**9 + 9))
print(float(10**300), float(-(10**308)), 10**308 * 1.0 == 1e308)
try:
    float(10**400)
except OverflowError as e:
    print(type(e).__name__, e)
try:
    10**400 / 1
except OverflowError as e:
    print(type(e).__name__, e)
print(10**400 // 10**399, (10**400) / (10**399), 2**1000 / 2**999)
f = 1
for i in range(1, 120):
    f *= i
print(f % (10**9 + 7), str(f).count("0"), len(str(f)), f.bit_length())
print(hex(2**200)[:10], format(2**200, ",")[:20], f"{2**150:_}"[:15], f"{2**100:e}")
