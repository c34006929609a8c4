"""match: literal, capture, wildcard and value patterns; None/True/False compare by identity."""
import math

def classify(x):
    match x:
        case 0:
            return "zero"
        case 1 | 2 | 3:
            return "small"
        case -1:
            return "minus one"
        case 1.5:
            return "one and a half"
        case "hello":
            return "greeting"
        case b"raw":
            return "bytes"
        case None:
            return "none"
        case True:
            return "true"
        case False:
            return "false"
        case math.pi:
            return "pi"
        case other:
            return f"other {other!r}"

for v in [0, 1, 3, -1, 1.5, "hello", b"raw", None, True, False, 0.0, 1.0, math.pi, "x", [1], 2.0]:
    print(repr(v), "->", classify(v))

def wild(x):
    match x:
        case _:
            return "always"
print(wild(object) , wild(None))

class Color:
    RED = "red"
    GREEN = "green"

def color(c):
    match c:
        case Color.RED:
            return "stop"
        case Color.GREEN:
            return "go"
        case _:
            return "unknown"
print(color("red"), color("green"), color("blue"))

# capture binds even when the subject is falsy; the name survives the match
match []:
    case captured:
        pass
print("captured", captured)

# -0 and complex-free negative literals; string concatenation in literals
match "ab":
    case "a" "b":
        print("implicit concat matched")
match -0:
    case 0:
        print("-0 matches 0")
