class K:
    base = [1, 2, 3]
    doubled = [x * 2 for x in base]
print(K.doubled)
funcs = {name: (lambda n=name: n.upper()) for name in ["a", "b"]}
print({k: f() for k, f in funcs.items()})
matrix = [[1, 2, 3], [4, 5, 6]]
print([[row[i] for row in matrix] for i in range(3)])
print([x for x in range(20) if x % 2 if x % 3], sum(x for x in range(5) for _ in range(2)))
print({c: "abracadabra".count(c) for c in "abracadabra"})
print(list({x: None for x in [3, 1, 3, 2]}), [(y, z) for y in "ab" for z in (1, 2) if (y, z) != ("a", 2)])
