"""Common dict idioms: counting, grouping, inverting, merging with defaults, nested updates."""
text = "the quick brown fox jumps over the lazy dog the end"
counts = {}
for w in text.split():
    counts[w] = counts.get(w, 0) + 1
print(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3])
groups = {}
for w in text.split():
    groups.setdefault(len(w), []).append(w)
print({k: groups[k] for k in sorted(groups)})
inv = {v: k for k, v in {"a": 1, "b": 2, "c": 1}.items()}
print(inv)
defaults = {"color": "red", "size": "M", "tags": []}
user = {"size": "L"}
cfg = {**defaults, **user}
print(cfg, defaults)
def deep_merge(a, b):
    out = dict(a)
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = v
    return out
print(deep_merge({"a": {"x": 1, "y": {"p": 1}}, "b": 1}, {"a": {"y": {"q": 2}}, "c": 3}))
matrix = {(r, c): r * c for r in range(3) for c in range(3) if r != c}
print(matrix, sum(matrix.values()), max(matrix, key=matrix.get))
print(dict(zip(*[iter("aAbBcC")] * 2)))
