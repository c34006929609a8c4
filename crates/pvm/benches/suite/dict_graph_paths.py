"""Dict-heavy graph work: adjacency dicts, breadth-first search, Dijkstra with heapq, and
connected components by union-find in a dict."""
import heapq


def build(n):
    graph = {}
    for i in range(n):
        edges = {}
        for d in (1, 7, 31, 127):
            j = (i * 13 + d * d) % n
            if j != i:
                edges[j] = 1 + (i + d) % 17
        graph[i] = edges
    return graph


def bfs(graph, start):
    dist = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for u in frontier:
            for v in graph[u]:
                if v not in dist:
                    dist[v] = dist[u] + 1
                    nxt.append(v)
        frontier = nxt
    return dist


def dijkstra(graph, start):
    dist = {start: 0}
    heap = [(0, start)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist.get(u, 1 << 60):
            continue
        for v, w in graph[u].items():
            nd = d + w
            if nd < dist.get(v, 1 << 60):
                dist[v] = nd
                heapq.heappush(heap, (nd, v))
    return dist


def components(graph):
    parent = {}

    def find(x):
        while parent.get(x, x) != x:
            parent[x] = parent.get(parent[x], parent[x])
            x = parent[x]
        return x

    for u, edges in graph.items():
        for v in edges:
            if (u + v) % 3 == 0:
                ru, rv = find(u), find(v)
                if ru != rv:
                    parent[ru] = rv
    return len({find(u) for u in graph})


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(2):
    g = build(70000)
    levels = bfs(g, 0)
    paths = dijkstra(g, 0)
    print(len(levels), max(levels.values()), sum(paths.values()) % 1000003, components(g))
