import dataclasses
from dataclasses import dataclass, field, FrozenInstanceError

@dataclass(frozen=True)
class Fz:
    a: int
    b: str = "s"
f = Fz(1)
for op in [lambda: setattr(f, "a", 2), lambda: delattr(f, "a"), lambda: setattr(f, "new", 1)]:
    try:
        op()
    except FrozenInstanceError as e:
        print(type(e).__name__, e, isinstance(e, AttributeError))
print(hash(Fz(1)) == hash((1, "s")), {Fz(1): "x"}[Fz(1)], f)
@dataclass(order=True)
class O:
    a: int
    b: int = 0
print(O(1) < O(2), O(1, 5) < O(2, 0), O(2) <= O(2), O(3) > O(2, 9), sorted([O(2), O(1, 3), O(1, 2)]))
try:
    O(1) < 3
except TypeError as e:
    print("TypeError", e)
@dataclass(eq=False)
class NoEq:
    a: int
print(NoEq(1) == NoEq(1), NoEq.__hash__ is object.__hash__)
@dataclass(repr=False)
class NoRepr:
    a: int
print(repr(NoRepr(1)).startswith("<"))
@dataclass(init=False)
class NoInit:
    a: int = 3
print(NoInit(), NoInit().a)
@dataclass(unsafe_hash=True)
class UH:
    a: int
    b: list = field(default_factory=list, hash=False)
print(hash(UH(1)) == hash((1,)), UH(1) == UH(1))
@dataclass(kw_only=True)
class KW:
    a: int
    b: int = 2
print(KW(a=1), KW(b=5, a=0))
try:
    KW(1)
except TypeError as e:
    print("TypeError", e)
try:
    KW()
except TypeError as e:
    print("TypeError", e)
@dataclass
class Mixed:
    a: int
    _: dataclasses.KW_ONLY
    b: int
    c: int = 3
print(Mixed(1, b=2), Mixed.__match_args__)
try:
    Mixed(1, 2)
except TypeError as e:
    print("TypeError", e)
@dataclass(match_args=False)
class NoMatch:
    a: int
print(hasattr(NoMatch, "__match_args__"))
@dataclass(slots=True)
class Sl:
    a: int
    b: int = 1
s = Sl(5)
print(s, Sl.__slots__, hasattr(s, "__dict__"))
try:
    s.c = 1
except AttributeError:
    print("AttributeError")
@dataclass(frozen=True, order=True)
class Ver:
    major: int
    minor: int
print(max(Ver(1, 2), Ver(1, 10)), Ver(2, 0) > Ver(1, 99))
