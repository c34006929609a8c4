"""match: sequence patterns with fixed length, star captures, nesting; str/bytes are not sequences."""

def shape(x):
    match x:
        case []:
            return "empty"
        case [a]:
            return f"one {a}"
        case [a, b]:
            return f"two {a} {b}"
        case [first, *middle, last] if len(middle) > 2:
            return f"long {first}..{last} ({len(middle)} inside)"
        case [first, *rest]:
            return f"head {first} rest {rest}"
    return "not a sequence"

for v in [[], [1], (1, 2), [1, 2, 3], list(range(6)), range(3), "ab", b"ab", {1: 2}, 5]:
    print(repr(v), "->", shape(v))

def nested(p):
    match p:
        case [(x, y), [z, *_]]:
            return ("pair+list", x, y, z)
        case [[a, b], *others] if not others:
            return ("single pair", a, b)
        case (*_, (0, 0)):
            return "ends at origin"
    return None

print(nested([(1, 2), [3, 4, 5]]))
print(nested([[7, 8]]))
print(nested([(1, 1), (2, 2), (0, 0)]))
print(nested([1]))

# star capture is always a list, even from a tuple
match (1, 2, 3, 4):
    case (a, *b, c):
        print(type(b).__name__, a, b, c)
match (1,):
    case (a, *b):
        print("b empty:", b)

# star wildcard
match [1, 2, 3]:
    case [*_, 3]:
        print("ends with 3")

# sequences from generators do not match (only Sequence types)
def gen():
    yield 1
match gen():
    case [x]:
        print("matched gen")
    case _:
        print("generator is not a sequence")

# bytearray is excluded like str and bytes
match bytearray(b"xy"):
    case [a, b]:
        print("bytearray matched")
    case _:
        print("bytearray not a sequence pattern")
