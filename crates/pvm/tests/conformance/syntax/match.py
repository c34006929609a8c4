def describe(v):
    match v:
        case 0 | 1: return "small"
        case int(n) if n < 0: return f"negative {n}"
        case [x, y]: return f"pair {x},{y}"
        case [x, *rest]: return f"list starting {x} with {len(rest)} more"
        case {"type": "point", "x": x, **others}: return f"point x={x} others={others}"
        case str() as s: return "string " + s
        case P(x=0): return "P on axis"
        case P(x=px, y=py): return f"P {px} {py}"
        case _: return "other"
class P:
    __match_args__ = ("x", "y")
    def __init__(self, x, y): self.x, self.y = x, y
for v in [0, 1, -5, [1, 2], [1, 2, 3], {"type": "point", "x": 3, "z": 9}, "hi", P(0, 1), P(2, 3), 3.5]:
    print(describe(v))
match P(4, 5):
    case P(a, b): print("positional", a, b)
