"""match: class patterns with __match_args__, guards binding, or-patterns with captures, mapping **rest,
sequence star patterns, value patterns, nested, literal edge cases (True vs 1, -0.0, complex)."""
from dataclasses import dataclass


@dataclass
class Point:
    x: int
    y: int


class Box:
    __match_args__ = ("content",)

    def __init__(self, content):
        self.content = content

    def __repr__(self):
        return f"Box({self.content!r})"


def describe(v):
    match v:
        case True:
            return "True"
        case 1:
            return "one"
        case 0.5 | 1.5:
            return "half-ish"
        case 2j:
            return "imaginary 2"
        case 1 + 1j:
            return "complex"
        case "":
            return "empty str"
        case Point(x=0, y=0):
            return "origin"
        case Point(0, y) | Point(y, 0):
            return f"on axis {y}"
        case Point(x, y) if x == y:
            return f"diagonal {x}"
        case Box(Box(inner)):
            return f"nested box {inner}"
        case Box(content=[*_, last]):
            return f"box ending {last}"
        case {"type": "user", "name": str(name), **rest}:
            return f"user {name} {sorted(rest)}"
        case [int(a), *middle, int(b)] if middle:
            return f"ints {a}..{b} around {middle}"
        case [x, [y, *z]]:
            return f"nested seq {x} {y} {z}"
        case (1, 2) | [3, 4]:
            return "pair"
        case str() | bytes() as s:
            return f"text {s!r}"
        case {**kw} if not kw:
            return "empty mapping"
        case _:
            return f"other {type(v).__name__}"


for v in [True, 1, 1.0, 0.5, 2j, 1 + 1j, "", Point(0, 0), Point(0, 5), Point(7, 0), Point(3, 3), Point(1, 2),
          Box(Box(9)), Box([1, 2, 3]), Box([]), {"type": "user", "name": "ann", "age": 3, "id": 1},
          {"type": "user", "name": 5}, [1, "x", "y", 2], [1, 2], [1, [2, 3, 4]], (1, 2), [3, 4], "hi", b"by", {},
          {"a": 1}, None, False, 0, -0.0]:
    print(repr(v), "->", describe(v))
try:
    match Box(1):
        case Box(a, b):
            pass
except TypeError as e:
    print("TypeError", e)
