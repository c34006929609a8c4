"""match: class patterns with __match_args__, keyword sub-patterns, builtins' self-matching."""

class Point:
    __match_args__ = ("x", "y")
    def __init__(self, x, y):
        self.x, self.y = x, y

class Point3(Point):
    __match_args__ = ("x", "y", "z")
    def __init__(self, x, y, z):
        super().__init__(x, y)
        self.z = z

def where(p):
    match p:
        case Point3(0, 0, 0):
            return "3d origin"
        case Point3(x, y, z=0):
            return f"flat 3d {x},{y}"
        case Point(0, 0):
            return "origin"
        case Point(0, y):
            return f"on y axis at {y}"
        case Point(x=0 | 1 as x, y=y):
            return f"x is {x}, y {y}"
        case Point():
            return "some point"
        case int(n) if n < 0:
            return "negative int"
        case int() | float():
            return "number"
        case str(s):
            return f"str {s!r}"
        case (list() | tuple()) as seq:
            return f"seq of {len(seq)}"
    return "?"

for v in [Point3(0, 0, 0), Point3(1, 2, 0), Point(0, 0), Point(0, 5), Point(1, 9), Point(4, 4), -3, 3, 2.5, "s", [1, 2], (1,), None]:
    print(where(v))

# bool is a subclass of int
match True:
    case int(v):
        print("bool matched int()", v)

# errors: too many positional sub-patterns, non-class in a class pattern
class NoArgs:
    pass
try:
    match NoArgs():
        case NoArgs(1):
            pass
except TypeError as e:
    print(type(e).__name__, e)

try:
    match Point(1, 2):
        case Point(1, 2, 3):
            pass
except TypeError as e:
    print(type(e).__name__, e)

class BadArgs:
    __match_args__ = ["x"]
try:
    match BadArgs():
        case BadArgs(1):
            pass
except TypeError as e:
    print(type(e).__name__, e)

not_a_class = 5
try:
    match 5:
        case not_a_class():
            pass
except TypeError as e:
    print(type(e).__name__, e)

# missing attribute just fails to match
match Point(1, 2):
    case Point(q=1):
        print("no")
    case _:
        print("missing attribute does not match")
