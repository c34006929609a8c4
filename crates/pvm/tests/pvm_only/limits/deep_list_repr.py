x = []
for _ in range(100000):
    x = [x]
print(repr(x)[:10])
