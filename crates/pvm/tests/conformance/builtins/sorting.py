people = [("bob", 25), ("alice", 30), ("carol", 25), ("dave", 30), ("eve", 22)]
print(sorted(people, key=lambda p: p[1]))
print(sorted(people, key=lambda p: (-p[1], p[0])))
print(sorted(people, key=lambda p: p[1], reverse=True))
words = ["banana", "Apple", "cherry", "apple"]
print(sorted(words), sorted(words, key=str.lower), sorted(words, key=len, reverse=True))
xs = [3, 1, 2]; xs.sort(key=lambda v: -v); print(xs)
print(sorted([[2, 1], [1, 2], [1]]), sorted((3, 1, 2)), sorted({"b": 1, "a": 2}), sorted([0.5, -1, 2]))
try: sorted([1, "a"])
except TypeError as e: print("TypeError", e)
