import itertools

print(list(itertools.product("ab", [1, 2])))
print(list(itertools.product([0, 1], repeat=3)))
print(list(itertools.product("ab", "c", repeat=2)))
print(list(itertools.product()), list(itertools.product([], [1])), list(itertools.product([1], repeat=0)))
print(list(itertools.permutations("abc")))
print(list(itertools.permutations(range(4), 2)))
print(list(itertools.permutations([1, 2], 3)), list(itertools.permutations([], 0)), list(itertools.permutations([1], 0)))
print(list(itertools.combinations("abcd", 2)))
print(list(itertools.combinations(range(5), 3)))
print(list(itertools.combinations("ab", 3)), list(itertools.combinations("ab", 0)))
print(list(itertools.combinations_with_replacement("abc", 2)))
print(list(itertools.combinations_with_replacement([], 2)), list(itertools.combinations_with_replacement([], 0)))
print(list(itertools.combinations_with_replacement([1, 2], 3)))
print(len(list(itertools.permutations(range(6)))), len(list(itertools.combinations(range(10), 4))))
print(list(itertools.permutations([1, 1, 2], 2)))
for f, args in [(itertools.combinations, ("ab", -1)), (itertools.permutations, ("ab", -1)),
                (itertools.combinations_with_replacement, ("ab", -2))]:
    try:
        f(*args)
    except ValueError as e:
        print("ValueError", e)
try:
    itertools.product([1], repeat=-1)
except ValueError as e:
    print("ValueError", e)
try:
    itertools.product(1)
except TypeError as e:
    print("TypeError", e)
try:
    itertools.combinations(None, 2)
except TypeError as e:
    print("TypeError", e)
print(sum(1 for _ in itertools.product(range(4), repeat=4)))
