text = """It was the best of times, it was the worst of times, it was the age of wisdom,
it was the age of foolishness, it was the epoch of belief, it was the epoch of incredulity"""
words = [w.strip(",.").lower() for w in text.split()]
freq = {}
for w in words: freq[w] = freq.get(w, 0) + 1
top = sorted(freq.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
print(len(words), len(freq), top)
print(max(words, key=len), sorted({len(w) for w in words}), sum(map(len, words)) / len(words))
lines = text.splitlines()
print([len(l) for l in lines], [l.count("it was") for l in lines], text.title()[:30])
print(" ".join(w[::-1] for w in words[:6]), "".join(sorted(set("".join(words)))))
