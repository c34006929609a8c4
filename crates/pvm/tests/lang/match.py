def check(x):
    match x:
        case 0 | 1:
            return "small"
        case None:
            return "none"
        case [a, b]:
            return f"pair {a} {b}"
        case [first, *rest] if first == "cmd":
            return f"cmd {rest}"
        case (1, *mid, 9):
            return f"1..9 {mid}"
        case {"k": v, **others}:
            return f"map {v} {others}"
        case str() as s:
            return f"str {s}"
        case Point(x=0, y=yy):
            return f"on y axis {yy}"
        case Point(a, b):
            return f"point {a},{b}"
        case int(n) if n > 100:
            return f"big {n}"
        case _:
            return "other"
class Point:
    __match_args__ = ("x", "y")
    def __init__(self, x, y): self.x, self.y = x, y
for v in [0, 1, None, [3, 4], ["cmd", 1, 2], (1, 2, 3, 9), {"k": 5, "z": 6}, "hi", Point(0, 7), Point(2, 3), 500, 50, 3.5]:
    print(check(v))
