import typing
from typing import Any, Callable, Dict, FrozenSet, List, Literal, Optional, Set, Tuple, Type, Union

print(repr(Optional[int]), repr(List[int]), repr(Dict[str, List[int]]), repr(Union[int, str]))
print(repr(Union[int]), repr(Optional[Union[int, str]]), repr(Union[int, Union[str, float]]))
print(repr(Callable[[int], str]), repr(Callable[..., int]), repr(Tuple[int, ...]), repr(Any))
print(repr(List), repr(Literal[1, "a"]), repr(typing.ClassVar[int]), repr(typing.Final[int]))
print(repr(Type[int]), repr(typing.Iterable[int]), repr(Set[int]), repr(FrozenSet[str]), repr(Tuple[()]))
print(repr(typing.Sequence[int]), repr(typing.Mapping[str, int]), repr(Optional[Any]))
print(repr(typing.Annotated[int, "meta"]), repr(Union[int, None, str]), repr(Optional[None]))
print(Optional[int] == Union[int, None], Union[int, str] == Union[str, int], List[int] == List[int])
print(hash(List[int]) == hash(List[int]), List[int] != List[str], Union[int, int] is int)
print(typing.get_origin(List[int]), typing.get_args(Dict[str, int]), typing.get_origin(int), typing.get_args(int))
print(typing.get_args(Callable[[int], str]), typing.get_origin(Union[int, str]), typing.get_args(Optional[int]))
print(typing.get_origin(Literal[1]), typing.get_args(Literal[1, 2]))
for bad in [lambda: List[int, str], lambda: Optional[int, str], lambda: isinstance([], List[int]),
            lambda: Dict[int]]:
    try:
        bad()
    except TypeError as e:
        print("TypeError", e)
print(isinstance([], List), isinstance({}, typing.Mapping), isinstance([], typing.Iterable),
      isinstance(3, typing.Iterable), isinstance(len, Callable), isinstance((1,), Tuple))
print(int | None == Optional[int], repr(Optional[int] | str))
