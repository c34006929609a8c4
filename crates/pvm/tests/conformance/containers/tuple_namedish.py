pt = (3, 4)
x, y = pt
print(x, y, pt + (5,), pt * 2, pt[::-1], len(pt), 3 in pt, pt.index(4), pt < (3, 5), max(pt))
records = [("b", 2), ("a", 2), ("c", 1)]
print(sorted(records), sorted(records, key=lambda r: r[1]), dict(records), min(records, key=lambda r: (r[1], r[0])))
print(hash((1, 2)) == hash((1, 2)), {(1, 2): "x"}[(1, 2)], tuple(reversed(pt)), (1, [2]) == (1, [2]))
try: pt[0] = 1
except TypeError as e: print("TypeError", e)
try: hash((1, [2]))
except TypeError as e: print("TypeError", e)
