from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Mapping,
                    Optional, Sequence, Set, Tuple, Union, cast, overload, final, NoReturn)
import typing

def total(xs: Iterable[int], scale: Optional[float] = None) -> float:
    return sum(xs) * (scale or 1)

def apply(f: Callable[[int], int], items: List[int]) -> List[int]:
    return [f(i) for i in items]

def first(m: Mapping[str, Sequence[int]]) -> Dict[str, int]:
    return {k: v[0] for k, v in m.items()}

def gen(n: int) -> Iterator[int]:
    yield from range(n)

print(total([1, 2, 3]), total([1, 2], 0.5), apply(lambda x: x * 2, [1, 2]), first({"a": [5]}))
print(list(gen(3)), total.__annotations__["return"], repr(total.__annotations__["scale"]))
print(cast(int, "not an int"), cast("List[int]", [1]), TYPE_CHECKING)
if TYPE_CHECKING:
    print("never")

@overload
def conv(x: int) -> str: ...
@overload
def conv(x: str) -> int: ...
def conv(x):
    return str(x) if isinstance(x, int) else int(x)
print(conv(3), conv("4"))

@final
class Leaf:
    @final
    def m(self) -> None:
        pass
print(Leaf.__final__, Leaf.m.__final__)
class Account:
    balance: int
    owner: str = "nobody"
    tags: Set[str]
    pair: Tuple[int, str]
print(Account.owner, list(Account.__annotations__))
print(typing.get_type_hints(Account)["pair"], typing.get_type_hints(total))
def stop() -> NoReturn:
    raise RuntimeError("stop")
try:
    stop()
except RuntimeError as e:
    print("RuntimeError", e)
x: Union[int, str] = 5
print(x)
try:
    typing.assert_never(3)
except AssertionError as e:
    print("AssertionError", e)
print(typing.assert_type(5, int), typing.reveal_type.__name__)
