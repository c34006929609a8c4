"""match: subjects that are expressions or tuples, match as a soft keyword, fall-through to no case."""

match = "still a name"
case = 3
print(match, case)

def describe(cmd):
    match cmd.split():
        case ["go", ("north" | "south" | "east" | "west") as direction]:
            return f"going {direction}"
        case ["go", *_]:
            return "go where?"
        case ["pick", "up", *items] if items:
            return "picking " + ", ".join(items)
        case ["quit" | "exit"]:
            return "bye"
        case []:
            return "say something"
    return f"unknown command {cmd!r}"

for c in ["go north", "go up", "pick up sword shield", "pick up", "quit", "exit", "", "dance now"]:
    print(describe(c))

# tuple subject without parentheses
x, y = 1, 2
match x, y:
    case (1, 2):
        print("tuple subject")

# no case matches: nothing happens, no error
match 42:
    case 1:
        print("never")
print("after unmatched match")

# match in a loop with break/continue semantics
for v in [1, "s", None, 4]:
    match v:
        case None:
            print("stop at None")
            break
        case str():
            continue
        case _:
            print("int", v)

# recursion over a tree with match
def total(tree):
    match tree:
        case int(n):
            return n
        case [left, right]:
            return total(left) + total(right)
        case {"value": v, "children": kids}:
            return v + sum(total(k) for k in kids)
    raise ValueError(f"bad tree node {tree!r}")

print(total([[1, 2], {"value": 10, "children": [3, [4, 5]]}]))
try:
    total([1, "x"])
except ValueError as e:
    print(type(e).__name__, e)
