from typing import NamedTuple, TypedDict, NewType, Optional
import typing

class Point(NamedTuple):
    x: int
    y: int = 0
    def norm(self) -> int:
        return abs(self.x) + abs(self.y)
p = Point(3, -4)
print(p, p.norm(), Point(1), Point._fields, Point._field_defaults, Point.__annotations__)
print(isinstance(p, tuple), p._replace(y=1), p._asdict())
Emp = NamedTuple("Emp", [("name", str), ("id", int)])
print(Emp("ann", 1), Emp._fields)
try:
    class Bad(NamedTuple):
        a: int = 1
        b: int
except TypeError as e:
    print("TypeError", e)
try:
    class Bad2(NamedTuple):
        a: int
        def _asdict(self):
            return {}
except AttributeError as e:
    print("AttributeError", e)
class Movie(TypedDict):
    name: str
    year: int
m = Movie(name="Blade Runner", year=1982)
print(m, type(m).__name__, Movie.__annotations__, sorted(Movie.__required_keys__), Movie.__total__)
class Partial(TypedDict, total=False):
    rating: float
print(sorted(Partial.__optional_keys__), Partial.__total__, Partial(rating=1.5))
class Sub(Movie):
    director: str
print(sorted(Sub.__annotations__), sorted(Sub.__required_keys__))
try:
    isinstance(m, Movie)
except TypeError as e:
    print("TypeError", e)
Alt = TypedDict("Alt", {"a": int, "b": Optional[str]})
print(Alt(a=1), sorted(Alt.__annotations__), typing.is_typeddict(Alt), typing.is_typeddict(dict))
UserId = NewType("UserId", int)
print(UserId(5), UserId.__supertype__, UserId.__name__)
