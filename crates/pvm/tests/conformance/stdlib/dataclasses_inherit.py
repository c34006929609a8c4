from dataclasses import dataclass, field, fields

@dataclass
class Base:
    x: int
    y: int = 0
@dataclass
class Derived(Base):
    z: int = 5
    y: int = 10
d = Derived(1)
print(d, [f.name for f in fields(Derived)], Derived(1, 2, 3))
class Plain(Base):
    def extra(self):
        return self.x * 2
print(Plain(4).extra(), Plain(4))
try:
    @dataclass
    class Bad(Base):
        w: int
except TypeError as e:
    print("TypeError", e)
@dataclass(frozen=True)
class FB:
    a: int
try:
    @dataclass
    class NF(FB):
        b: int = 0
except TypeError as e:
    print("TypeError", e)
try:
    @dataclass(frozen=True)
    class FN(Base):
        q: int = 0
except TypeError as e:
    print("TypeError", e)
@dataclass(frozen=True)
class FF(FB):
    b: int = 1
print(FF(1), hash(FF(1)) == hash((1, 1)))
@dataclass
class Custom:
    a: int
    def __repr__(self):
        return "custom!"
    def __eq__(self, other):
        return True
print(Custom(1), Custom(1) == Custom(2), Custom.__hash__)
@dataclass
class WithHash:
    a: int
    def __hash__(self):
        return 7
print(hash(WithHash(1)))
try:
    @dataclass(order=True)
    class HasLt:
        a: int
        def __lt__(self, o):
            return True
except TypeError as e:
    print("TypeError", e)
try:
    @dataclass(unsafe_hash=True)
    class HasHash:
        a: int
        def __hash__(self):
            return 1
except TypeError as e:
    print("TypeError", e)
@dataclass
class A:
    a: list = field(default_factory=list)
@dataclass
class B(A):
    b: int = 0
print(B(), B([1], 2), B() == B(), isinstance(B(), A))
print(Derived.__doc__, Base.__doc__)
