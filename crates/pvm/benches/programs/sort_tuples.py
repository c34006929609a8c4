# Sorting with key functions and tuple comparison (data sized to fit the 10 MiB invocation limit).
out = []
for r in range(3):
    data = [((i * 7919 + r) % 10007, (i * 31) % 97, "k%d" % (i % 113)) for i in range(20000)]
    a = sorted(data)
    b = sorted(data, key=lambda t: (t[1], t[2]))
    c = sorted(data, key=lambda t: t[0], reverse=True)
    out.append((a[0], a[-1], b[0], b[-1], c[0], c[-1]))
print(out)
