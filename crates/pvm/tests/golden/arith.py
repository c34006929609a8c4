total = 0
for i in range(2000):
    total += i * i % 7 - (i // 3)
print(total, 2 ** 200 % 1000003, 1.5 * 3 / 7)
