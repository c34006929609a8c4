"""PEP 585 generic aliases (list[int], dict[str, int], tuple[()], type[C]): repr, __origin__/__args__,
equality and hashing, calling, subclassing, unions, isinstance errors, typing.get_origin/get_args; X | Y unions compare as sets."""
a = list[int]
print(a, repr(dict[str, list[int]]), tuple[int, ...], type[int])
print(a.__origin__, a.__args__, a == list[int], a != list[str], hash(a) == hash(list[int]))
print(a([1, 2]), dict[str, int](x=1))
try:
    isinstance([], list[int])
except TypeError as e:
    print("TypeError", e)
print(list[int] | None, int | list[str])
def f(x: list[int]) -> dict[str, tuple[int, ...]]: pass
print(f.__annotations__)
print(type(list[int]).__name__)
print(list[int].__name__, set[str], frozenset[int], tuple[()], list[dict[str, "x"]], type[int | None])
class MyList(list[int]):
    pass
print(MyList.__mro__, MyList([1]))
import collections
print(dict[str, collections.OrderedDict])
try:
    issubclass(list, list[int])
except TypeError as e:
    print("TypeError", e)
print({list[int]: 1}[list[int]], list[int] == list, list[int] is list[int])
import typing
print(typing.get_origin(list[int]), typing.get_args(dict[str, int]))
print(typing.get_origin(int | str), typing.get_args(int | str), typing.get_args(int))
u = int | None
print(u, type(u), u.__args__, isinstance(1, u), int | str == str | int, hash(int|str) == hash(int|str))
