"""match: guards (evaluated after binding), or-patterns, as-patterns, first match wins."""

log = []

def check(v):
    log.append(v)
    return v > 10

def f(x):
    match x:
        case int(n) if check(n):
            return "big"
        case int(n) | float(n) if n == 0:
            return "zero-ish"
        case [1 | 2 as a, (3 | 4) as b]:
            return f"pair {a},{b}"
        case {"k": [1, 2] | [3, 4] as inner} as whole:
            return f"inner={inner} whole={whole}"
        case (("a" | "b") as letter) | [("a" | "b") as letter]:
            return f"letter {letter}"
        case str() as s if s.startswith("x"):
            return "x-word"
        case _:
            return "default"

for v in [50, 5, 0, 0.0, [1, 4], [2, 3], [3, 3], {"k": [3, 4]}, "a", ["b"], "xyz", "abc"]:
    print(repr(v), "->", f(v))
print("guard calls:", log)

# guard sees the bindings; a failed guard does not unbind them (CPython leaves them bound)
match 7:
    case n if n > 100:
        pass
    case _:
        pass
print("n after failed guard:", n)

# or-pattern alternatives are tried left to right
def which(v):
    match v:
        case [x, 0] | [0, x]:
            return x
print(which([5, 0]), which([0, 6]), which([0, 0]), which([1, 1]))

# nested as with wildcard and walrus inside the guard
match (1, (2, 3)):
    case (a, (b, c) as inner) if (total := a + b + c) == 6:
        print(a, b, c, inner, total)
