# Sorting with key functions and tuple comparison.
data = [((i * 7919) % 10007, (i * 31) % 97, "k%d" % (i % 113)) for i in range(60000)]
a = sorted(data)
b = sorted(data, key=lambda t: (t[1], t[2]))
c = sorted(data, key=lambda t: t[0], reverse=True)
print(a[0], a[-1], b[0], b[-1], c[0], c[-1])
