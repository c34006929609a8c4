class Heap:
    def __init__(self): self.a = []
    def push(self, item):
        a = self.a; a.append(item); i = len(a) - 1
        while i and a[(i - 1) // 2] > a[i]:
            p = (i - 1) // 2; a[i], a[p] = a[p], a[i]; i = p
    def pop(self):
        a = self.a; top = a[0]; last = a.pop()
        if a:
            a[0] = last; i = 0
            while True:
                l, r, m = 2 * i + 1, 2 * i + 2, i
                if l < len(a) and a[l] < a[m]: m = l
                if r < len(a) and a[r] < a[m]: m = r
                if m == i: break
                a[i], a[m] = a[m], a[i]; i = m
        return top
    def __len__(self): return len(self.a)
h = Heap()
for v in [(5, "e"), (1, "a"), (3, "c"), (2, "b"), (4, "d"), (1, "z")]: h.push(v)
print([h.pop() for _ in range(len(h))])
def dijkstra(graph, src):
    dist = {src: 0}; h = Heap(); h.push((0, src)); seen = set()
    while len(h):
        d, u = h.pop()
        if u in seen: continue
        seen.add(u)
        for v, w in graph.get(u, []):
            if d + w < dist.get(v, 10 ** 9):
                dist[v] = d + w; h.push((d + w, v))
    return dict(sorted(dist.items()))
g = {"a": [("b", 7), ("c", 9), ("f", 14)], "b": [("c", 10), ("d", 15)], "c": [("d", 11), ("f", 2)], "d": [("e", 6)], "f": [("e", 9)]}
print(dijkstra(g, "a"))
