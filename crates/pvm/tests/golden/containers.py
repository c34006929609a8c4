d = {}
for i in range(500):
    d[str(i % 97)] = d.get(str(i % 97), 0) + i
items = sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))
print(items[:3], len(d), sum(v for v in d.values()))
s = {x * x % 11 for x in range(100)}
print(sorted(s), [x for x in range(50) if x % 7 == 0], tuple(reversed(range(5))))
