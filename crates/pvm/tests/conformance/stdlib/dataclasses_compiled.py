# The methods dataclasses compiles from CPython's templates (`_dataclasses.init`/`method`):
# defaults and factories, init=False fields, frozen stores through object.__setattr__,
# InitVar and __post_init__, keyword-only fields (kw_only, KW_ONLY), a field named `self`,
# an empty class, inheritance, a user __setattr__, argument errors named by __qualname__, the
# comparisons' NotImplemented and a failing field __eq__; and a class whose field name is not
# ASCII, which keeps the general closures, with the same results.
from dataclasses import dataclass, field, InitVar, KW_ONLY, replace, fields
@dataclass
class A:
    x: int
    y: list = field(default_factory=list)
    z: int = 5
    w: int = field(default=7, init=False)
    v: dict = field(default_factory=dict, init=False)
a = A(1)
print(a, A(1, [2], z=3))
try: A()
except TypeError as e: print(e)
try: A(1, 2, 3, 4)
except TypeError as e: print(e)
try: A(1, q=2)
except TypeError as e: print(e)
try: A(1, x=2)
except TypeError as e: print(e)
@dataclass(frozen=True)
class F:
    a: int
    b: str = "s"
f = F(1)
print(f, hash(f) == hash(F(1)), replace(f, b="t"))
try: f.a = 3
except Exception as e: print(type(e).__name__, e)
@dataclass
class P:
    a: int
    scale: InitVar[int] = 2
    def __post_init__(self, scale):
        self.a *= scale
print(P(3), P(3, 10), replace(P(1), scale=3))
@dataclass(kw_only=True)
class K:
    a: int
    b: int = 2
print(K(a=1))
try: K(1)
except TypeError as e: print(e)
@dataclass
class M:
    a: int
    _: KW_ONLY
    b: int
    c: int = 3
print(M(1, b=2))
try: M(1)
except TypeError as e: print(e)
@dataclass
class S:
    self: int
    other: int = 0
print(S(1, 2), S(self=4) == S(4))
@dataclass
class Empty:
    pass
print(Empty(), Empty() == Empty())
try: Empty(1)
except TypeError as e: print(e)
print(A.__init__.__qualname__, A.__init__.__name__, M.__init__.__qualname__)
@dataclass
class Base:
    a: int
    b: int = 1
@dataclass
class Sub(Base):
    c: int = 2
print(Sub(1), Sub(1, 2, 3), fields(Sub)[2].name)
class Desc:
    def __get__(self, o, t): return 99
@dataclass
class WithSetattr:
    a: int
    def __setattr__(self, n, v):
        print("set", n, v)
        object.__setattr__(self, n, v)
WithSetattr(3)
@dataclass(frozen=True, order=True)
class Sku:
    category: str
    code: int
a, b = Sku("x", 1), Sku("x", 2)
print(a == b, a < b, a <= b, a > b, a >= b, hash(a) == hash(Sku("x", 1)), a == Sku("x", 1))
print(Sku.__eq__.__qualname__, Sku.__lt__.__qualname__, Sku.__hash__.__qualname__)
print(a.__eq__(3), a.__lt__(3))
try:
    a < 3
except TypeError as e:
    print(e)
class Odd:
    def __eq__(self, o):
        raise ValueError("boom")
@dataclass
class W:
    o: object
try:
    W(Odd()) == W(Odd())
except ValueError as e:
    print("caught", e)
@dataclass(frozen=True, order=True)
class Ñ:
    año: int
    b: list = field(default_factory=list, compare=False, hash=False)
print(Ñ(1), Ñ(1) == Ñ(1, [2]), Ñ(1) < Ñ(2), hash(Ñ(3)) == hash((3,)), replace(Ñ(1), año=5))
try:
    Ñ()
except TypeError as e:
    print(e)
# Field names too long for the compiler's source limit keep the closures too.
from dataclasses import make_dataclass
Big = make_dataclass('Big', ['x' * 70000, 'y'])
big = Big(1, 2)
print(big == Big(1, 2), big == Big(1, 3), len(repr(big)), Big.__init__.__qualname__)
