class Meta(type):
    def __new__(mcls, name, bases, ns, **kw):
        ns["added"] = kw.get("flag", 0)
        cls = super().__new__(mcls, name, bases, ns)
        cls.registry = []
        return cls
    def __call__(cls, *a, **k):
        inst = super().__call__(*a, **k)
        cls.registry.append(inst)
        return inst
    def __len__(cls): return len(cls.registry)
    def __iter__(cls): return iter(cls.registry)
    def __getitem__(cls, i): return cls.registry[i]
    def __repr__(cls): return f"<Meta {cls.__name__}>"
    @property
    def count(cls): return len(cls.registry)
    def describe(cls): return "I am " + cls.__name__
class A(metaclass=Meta, flag=7):
    def __init__(self, v): self.v = v
    def __repr__(self): return f"A({self.v})"
class B(A):
    pass
A(1); A(2); B(3)
print(A, type(A).__name__, A.added, len(A), list(A), A[0], A.count, A.describe(), isinstance(A, Meta), type(B) is Meta, len(B))
X = type("X", (), {"z": 1})
print(X.z, X().z, type(X))
from enum import Enum, IntEnum, auto
class Color(Enum):
    RED = 1
    GREEN = 2
    BLUE = auto()
print(Color.RED, repr(Color.GREEN), Color(3), Color["RED"], list(Color), len(Color), Color.RED.name, Color.RED.value)
import abc
class Shape(abc.ABC):
    @abc.abstractmethod
    def area(self): ...
try:
    Shape()
except TypeError as e:
    print(e)
