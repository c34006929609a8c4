# collections.abc: structural checks through __subclasshook__, opting out with None,
# registration of virtual subclasses, and the typing aliases agreeing with the ABCs.
from collections.abc import (Hashable, Iterable, Iterator, Sized, Container, Callable,
                             Collection, Reversible, Generator, Awaitable, Coroutine,
                             AsyncIterable, AsyncIterator, Sequence, Mapping, MutableMapping)
import typing


class OnlyIter:
    def __iter__(self):
        return iter([1, 2])


class OnlyLen:
    def __len__(self):
        return 3


class Full:
    def __len__(self):
        return 0

    def __iter__(self):
        return iter(())

    def __contains__(self, x):
        return False

    def __reversed__(self):
        return iter(())


class MyIter:
    def __iter__(self):
        return self

    def __next__(self):
        raise StopIteration


class Gen(MyIter):
    def send(self, v):
        raise StopIteration

    def throw(self, *a):
        raise StopIteration

    def close(self):
        pass


class Aw:
    def __await__(self):
        yield


class Co(Aw):
    def send(self, v):
        pass

    def throw(self, *a):
        pass

    def close(self):
        pass


class AIt:
    def __aiter__(self):
        return self

    async def __anext__(self):
        raise StopAsyncIteration


class CallMe:
    def __call__(self):
        return 1


class EqOnly:
    def __eq__(self, other):
        return True


class NoIter(OnlyIter):
    __iter__ = None


class NoHash:
    __hash__ = None


class EqAndHash(EqOnly):
    def __hash__(self):
        return 1


class Child(EqAndHash):
    def __eq__(self, other):
        return False


names = ["Hashable", "Iterable", "Iterator", "Sized", "Container", "Callable", "Collection",
         "Reversible", "Generator", "Awaitable", "Coroutine", "AsyncIterable", "AsyncIterator",
         "Sequence", "Mapping"]
space = dict(Hashable=Hashable, Iterable=Iterable, Iterator=Iterator, Sized=Sized,
             Container=Container, Callable=Callable, Collection=Collection,
             Reversible=Reversible, Generator=Generator, Awaitable=Awaitable,
             Coroutine=Coroutine, AsyncIterable=AsyncIterable, AsyncIterator=AsyncIterator,
             Sequence=Sequence, Mapping=Mapping)
for cls in (OnlyIter, OnlyLen, Full, MyIter, Gen, Aw, Co, AIt, CallMe, EqOnly, NoIter, NoHash,
            EqAndHash, Child):
    print(cls.__name__, [n for n in names if issubclass(cls, space[n])],
          [n for n in names if isinstance(cls(), space[n])])

print(EqOnly.__dict__.get("__hash__", "absent"), Child.__hash__, "__hash__" in Full.__dict__)
try:
    hash(EqOnly())
except TypeError as e:
    print(type(e).__name__, e)
try:
    hash(Child())
except TypeError as e:
    print(type(e).__name__, e)
print(hash(EqAndHash()))


# Registration makes a virtual subclass: isinstance agrees, but no mixins are inherited.
class Seqish:
    def __init__(self, items):
        self.items = items

    def __getitem__(self, i):
        return self.items[i]

    def __len__(self):
        return len(self.items)


print(isinstance(Seqish([1]), Sequence), Sequence.register(Seqish) is Seqish)
print(isinstance(Seqish([1]), Sequence), issubclass(Seqish, Reversible),
      issubclass(Seqish, Iterable), hasattr(Seqish, "index"))
try:
    Sequence.register(3)
except TypeError as e:
    print(type(e).__name__, e)


class Sub(Seqish):
    pass


print(issubclass(Sub, Sequence), issubclass(Sub, Mapping))
MutableMapping.register(Sub)
print(issubclass(Sub, Mapping), isinstance(Sub([]), Collection))

# typing's unsubscripted aliases are the ABCs underneath.
print(typing.Iterable.__origin__ is Iterable, typing.AbstractSet.__origin__.__name__,
      typing.Callable.__origin__ is Callable, typing.Mapping.__origin__ is Mapping)
print(isinstance([], typing.Iterable), isinstance(OnlyIter(), typing.Iterable),
      isinstance(OnlyLen(), typing.Sized), isinstance(Seqish([]), typing.Sequence),
      isinstance({}, typing.MutableMapping), isinstance(CallMe(), typing.Callable))
print(issubclass(list, typing.Sequence), issubclass(dict, typing.Mapping),
      issubclass(OnlyIter, typing.Iterable), issubclass(int, typing.Hashable))


class FromTyping(typing.Sequence):
    def __getitem__(self, i):
        return "ab"[i]

    def __len__(self):
        return 2


ft = FromTyping()
print(list(ft), ft.index("b"), "a" in ft, list(reversed(ft)), isinstance(ft, Sequence))
print([c.__name__ for c in FromTyping.__mro__])
