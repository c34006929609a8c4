from typing import Generic, Protocol, TypeVar, runtime_checkable, List, Dict
import typing

T = TypeVar("T")
K = TypeVar("K", bound=int)
C = TypeVar("C", int, str, covariant=True)
print(repr(T), repr(K), repr(C), T.__name__, K.__bound__, C.__constraints__, C.__covariant__)
class Box(Generic[T]):
    def __init__(self, item: T):
        self.item = item
    def get(self) -> T:
        return self.item
b = Box(3)
print(b.get(), Box.__parameters__, isinstance(b, Box), repr(Box[int]).endswith("Box[int]"))
bi = Box[int](5)
print(type(bi).__name__, bi.get())
class IntBox(Box[int]):
    pass
print(IntBox(4).get(), IntBox.__mro__[1].__name__, IntBox.__parameters__)
class Pair(Generic[T, K]):
    pass
print(Pair.__parameters__)
class Reader(Protocol):
    def read(self) -> str: ...
class File:
    def read(self) -> str:
        return "data"
def use(r: Reader) -> str:
    return r.read()
print(use(File()))
@runtime_checkable
class Closer(Protocol):
    def close(self) -> None: ...
print(Closer._is_runtime_protocol)
try:
    runtime_checkable(File)
except TypeError as e:
    print("TypeError", str(e).split(",")[0])
for bad in [lambda: Generic[int], lambda: TypeVar("X", int), lambda: TypeVar("Y", int, str, bound=int)]:
    try:
        bad()
    except TypeError as e:
        print("TypeError", e)
try:
    TypeVar("Z", covariant=True, contravariant=True)
except ValueError as e:
    print("ValueError", e)
MyList = List[T]
print(repr(MyList[int]), repr(Dict[str, T][float]), repr(typing.AnyStr))
