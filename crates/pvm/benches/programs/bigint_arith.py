# Big-int arithmetic within the 4096-bit cap: modular exponentiation and factorial-like products.
M = (1 << 1279) - 1
acc = 1
x = 3
for i in range(1, 3000):
    acc = (acc * (x + i)) % M
    x = (x * x + i) % M
print(acc % 1000000007, x % 1000000007)
print(pow(5, 10 ** 4, M) % 1000000007)
