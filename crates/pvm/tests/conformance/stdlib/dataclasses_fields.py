import dataclasses
from dataclasses import dataclass, field, InitVar
from typing import ClassVar, List

@dataclass
class C:
    a: int
    b: int = field(default=5, repr=False)
    c: List[int] = field(default_factory=list, compare=False)
    d: int = field(default=0, init=False)
    e: ClassVar[int] = 100
    f: str = field(default="m", metadata={"unit": "m"})
c = C(1)
print(c, c.b, c.d, C.e, c == C(1, c=[9]), [fl.name for fl in dataclasses.fields(C)])
print(dataclasses.fields(C)[4].metadata["unit"], dataclasses.fields(C)[1].repr, dataclasses.fields(C)[3].init)
try:
    C(1, 2, [], 4)
except TypeError as e:
    print("TypeError", e)
@dataclass
class WithPost:
    a: int
    scale: InitVar[int] = 2
    total: int = field(init=False)
    def __post_init__(self, scale):
        self.total = self.a * scale
w = WithPost(3)
print(w, w.total, WithPost(3, 10).total, [f.name for f in dataclasses.fields(WithPost)])
print(repr(InitVar[int]), dataclasses.MISSING is dataclasses.MISSING)
for bad in ["nondefault", "mutable", "both", "noannot"]:
    try:
        if bad == "nondefault":
            @dataclass
            class Q:
                x: int = 0
                y: int
        elif bad == "mutable":
            @dataclass
            class R:
                x: list = []
        elif bad == "both":
            field(default=1, default_factory=list)
        else:
            @dataclass
            class S:
                x: int
                y = field(default=1)
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
try:
    @dataclass
    class T:
        x: dict = {}
except ValueError as e:
    print("ValueError", e)
@dataclass
class Fact:
    n: int = field(default_factory=lambda: 42)
print(Fact(), Fact(1))
counter = []
@dataclass
class Counted:
    v: list = field(default_factory=lambda: counter.append(1) or len(counter))
print(Counted(), Counted(), Counted(v=0), counter)
@dataclass
class Post:
    a: int
    def __post_init__(self):
        if self.a < 0:
            raise ValueError("negative")
try:
    Post(-1)
except ValueError as e:
    print("ValueError", e)
