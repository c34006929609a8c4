"""collections.abc for the PVM: the abstract base classes of containers.

Covers every ABC of CPython 3.11's collections.abc: Hashable, Awaitable, Coroutine,
AsyncIterable, AsyncIterator, AsyncGenerator, Iterable, Iterator, Reversible, Generator, Sized,
Container, Callable, Collection, Set, MutableSet, Mapping, MutableMapping, MappingView,
KeysView, ItemsView, ValuesView, Sequence, MutableSequence, ByteString. isinstance/issubclass
work structurally where CPython's have a __subclasshook__ (a class that defines the one-trick
methods, e.g. __iter__ for Iterable, counts; a method set to None opts out), and by
registration for the builtin types; subclasses get CPython's mixin methods (a Mapping gets get,
keys, items, values, __contains__, __eq__; a MutableMapping pop, popitem, clear, update,
setdefault; Set the comparison and algebra operators; Sequence index, count, __iter__,
__contains__, __reversed__; ...) and cannot be instantiated while abstract methods remain.

The PVM's builtin types do not list every slot method in their __dict__ (its iterator,
generator and function types list none), so those types are registered explicitly below instead
of being found by the hooks.

Does not: subscription returns the class itself (as `list[int]` does on the PVM), not a
types.GenericAlias; no Buffer (3.12). This file is the submodule `collections.abc` (the
PVM names a submodule's file after its dotted name). Written for the PVM from the documented
behaviour; builtins and abc only.
"""

from abc import ABCMeta as _ABCMeta, abstractmethod as _abstractmethod

__all__ = ["Awaitable", "Coroutine", "AsyncIterable", "AsyncIterator", "AsyncGenerator",
           "Hashable", "Iterable", "Iterator", "Generator", "Reversible", "Sized", "Container",
           "Callable", "Collection", "Set", "MutableSet", "Mapping", "MutableMapping",
           "MappingView", "KeysView", "ItemsView", "ValuesView", "Sequence", "MutableSequence",
           "ByteString"]


def _check_methods(C, *methods):
    """True if every method is defined somewhere on C's MRO and not set to None there;
    NotImplemented otherwise (so that registration can still decide)."""
    mro = C.__mro__
    for method in methods:
        for B in mro:
            if method in B.__dict__:
                if B.__dict__[method] is None:
                    return NotImplemented
                break
        else:
            return NotImplemented
    return True


def _class_getitem(cls, item):
    return cls


# One-trick ponies: each has a hook that recognises classes defining its method.

class Hashable(metaclass=_ABCMeta):
    __slots__ = ()

    @_abstractmethod
    def __hash__(self):
        return 0

    @classmethod
    def __subclasshook__(cls, C):
        if cls is Hashable:
            return _check_methods(C, "__hash__")
        return NotImplemented


class Awaitable(metaclass=_ABCMeta):
    __slots__ = ()

    @_abstractmethod
    def __await__(self):
        yield

    @classmethod
    def __subclasshook__(cls, C):
        if cls is Awaitable:
            return _check_methods(C, "__await__")
        return NotImplemented

    __class_getitem__ = classmethod(_class_getitem)


class Coroutine(Awaitable):
    __slots__ = ()

    @_abstractmethod
    def send(self, value):
        """Send a value into the coroutine; return the next yielded value or raise
        StopIteration."""
        raise StopIteration

    @_abstractmethod
    def throw(self, typ, val=None, tb=None):
        """Raise an exception in the coroutine."""
        if val is None:
            if tb is None:
                raise typ
            val = typ()
        if tb is not None:
            val = val.with_traceback(tb)
        raise val

    def close(self):
        """Raise GeneratorExit inside the coroutine."""
        try:
            self.throw(GeneratorExit)
        except (GeneratorExit, StopIteration):
            pass
        else:
            raise RuntimeError("coroutine ignored GeneratorExit")

    @classmethod
    def __subclasshook__(cls, C):
        if cls is Coroutine:
            return _check_methods(C, '__await__', 'send', 'throw', 'close')
        return NotImplemented


class AsyncIterable(metaclass=_ABCMeta):
    __slots__ = ()

    @_abstractmethod
    def __aiter__(self):
        return AsyncIterator()

    @classmethod
    def __subclasshook__(cls, C):
        if cls is AsyncIterable:
            return _check_methods(C, "__aiter__")
        return NotImplemented

    __class_getitem__ = classmethod(_class_getitem)


class AsyncIterator(AsyncIterable):
    __slots__ = ()

    @_abstractmethod
    async def __anext__(self):
        """Return the next item or raise StopAsyncIteration when exhausted."""
        raise StopAsyncIteration

    def __aiter__(self):
        return self

    @classmethod
    def __subclasshook__(cls, C):
        if cls is AsyncIterator:
            return _check_methods(C, "__anext__", "__aiter__")
        return NotImplemented


class AsyncGenerator(AsyncIterator):
    __slots__ = ()

    async def __anext__(self):
        """Return the next item from the asynchronous generator."""
        return await self.asend(None)

    @_abstractmethod
    async def asend(self, value):
        """Send a value into the asynchronous generator."""
        raise StopAsyncIteration

    @_abstractmethod
    async def athrow(self, typ, val=None, tb=None):
        """Raise an exception in the asynchronous generator."""
        if val is None:
            if tb is None:
                raise typ
            val = typ()
        if tb is not None:
            val = val.with_traceback(tb)
        raise val

    async def aclose(self):
        """Raise GeneratorExit inside the asynchronous generator."""
        try:
            await self.athrow(GeneratorExit)
        except (GeneratorExit, StopAsyncIteration):
            pass
        else:
            raise RuntimeError("asynchronous generator ignored GeneratorExit")

    @classmethod
    def __subclasshook__(cls, C):
        if cls is AsyncGenerator:
            return _check_methods(C, '__aiter__', '__anext__', 'asend', 'athrow', 'aclose')
        return NotImplemented


class Iterable(metaclass=_ABCMeta):
    __slots__ = ()

    @_abstractmethod
    def __iter__(self):
        while False:
            yield None

    @classmethod
    def __subclasshook__(cls, C):
        if cls is Iterable:
            return _check_methods(C, "__iter__")
        return NotImplemented

    __class_getitem__ = classmethod(_class_getitem)


class Iterator(Iterable):
    __slots__ = ()

    @_abstractmethod
    def __next__(self):
        """Return the next item from the iterator. When exhausted, raise StopIteration"""
        raise StopIteration

    def __iter__(self):
        return self

    @classmethod
    def __subclasshook__(cls, C):
        if cls is Iterator:
            return _check_methods(C, '__iter__', '__next__')
        return NotImplemented


class Reversible(Iterable):
    __slots__ = ()

    @_abstractmethod
    def __reversed__(self):
        while False:
            yield None

    @classmethod
    def __subclasshook__(cls, C):
        if cls is Reversible:
            return _check_methods(C, "__reversed__", "__iter__")
        return NotImplemented


class Generator(Iterator):
    __slots__ = ()

    def __next__(self):
        """Return the next item from the generator. When exhausted, raise StopIteration."""
        return self.send(None)

    @_abstractmethod
    def send(self, value):
        """Send a value into the generator; return the next yielded value or raise
        StopIteration."""
        raise StopIteration

    @_abstractmethod
    def throw(self, typ, val=None, tb=None):
        """Raise an exception in the generator."""
        if val is None:
            if tb is None:
                raise typ
            val = typ()
        if tb is not None:
            val = val.with_traceback(tb)
        raise val

    def close(self):
        """Raise GeneratorExit inside the generator."""
        try:
            self.throw(GeneratorExit)
        except (GeneratorExit, StopIteration):
            pass
        else:
            raise RuntimeError("generator ignored GeneratorExit")

    @classmethod
    def __subclasshook__(cls, C):
        if cls is Generator:
            return _check_methods(C, '__iter__', '__next__', 'send', 'throw', 'close')
        return NotImplemented


class Sized(metaclass=_ABCMeta):
    __slots__ = ()

    @_abstractmethod
    def __len__(self):
        return 0

    @classmethod
    def __subclasshook__(cls, C):
        if cls is Sized:
            return _check_methods(C, "__len__")
        return NotImplemented


class Container(metaclass=_ABCMeta):
    __slots__ = ()

    @_abstractmethod
    def __contains__(self, x):
        return False

    @classmethod
    def __subclasshook__(cls, C):
        if cls is Container:
            return _check_methods(C, "__contains__")
        return NotImplemented

    __class_getitem__ = classmethod(_class_getitem)


class Collection(Sized, Iterable, Container):
    __slots__ = ()

    @classmethod
    def __subclasshook__(cls, C):
        if cls is Collection:
            return _check_methods(C, "__len__", "__iter__", "__contains__")
        return NotImplemented


class Callable(metaclass=_ABCMeta):
    __slots__ = ()

    @_abstractmethod
    def __call__(self, *args, **kwds):
        return False

    @classmethod
    def __subclasshook__(cls, C):
        if cls is Callable:
            return _check_methods(C, "__call__")
        return NotImplemented

    __class_getitem__ = classmethod(_class_getitem)


# Sets.

class Set(Collection):
    """A set is a finite, iterable container whose elements are unique. Concrete subclasses
    define __contains__, __iter__ and __len__; the comparisons and the algebra come from
    here. To build results of another type, override the classmethod _from_iterable."""

    __slots__ = ()

    def __le__(self, other):
        if not isinstance(other, Set):
            return NotImplemented
        if len(self) > len(other):
            return False
        for elem in self:
            if elem not in other:
                return False
        return True

    def __lt__(self, other):
        if not isinstance(other, Set):
            return NotImplemented
        return len(self) < len(other) and self.__le__(other)

    def __gt__(self, other):
        if not isinstance(other, Set):
            return NotImplemented
        return len(self) > len(other) and self.__ge__(other)

    def __ge__(self, other):
        if not isinstance(other, Set):
            return NotImplemented
        if len(self) < len(other):
            return False
        for elem in other:
            if elem not in self:
                return False
        return True

    def __eq__(self, other):
        if not isinstance(other, Set):
            return NotImplemented
        return len(self) == len(other) and self.__le__(other)

    @classmethod
    def _from_iterable(cls, it):
        """Build a new instance from an iterable (the constructor by default)."""
        return cls(it)

    def __and__(self, other):
        if not isinstance(other, Iterable):
            return NotImplemented
        return self._from_iterable(value for value in other if value in self)

    __rand__ = __and__

    def isdisjoint(self, other):
        """Return True if two sets have a null intersection."""
        for value in other:
            if value in self:
                return False
        return True

    def __or__(self, other):
        if not isinstance(other, Iterable):
            return NotImplemented
        return self._from_iterable(e for s in (self, other) for e in s)

    __ror__ = __or__

    def __sub__(self, other):
        if not isinstance(other, Set):
            if not isinstance(other, Iterable):
                return NotImplemented
            other = self._from_iterable(other)
        return self._from_iterable(value for value in self if value not in other)

    def __rsub__(self, other):
        if not isinstance(other, Set):
            if not isinstance(other, Iterable):
                return NotImplemented
            other = self._from_iterable(other)
        return self._from_iterable(value for value in other if value not in self)

    def __xor__(self, other):
        if not isinstance(other, Set):
            if not isinstance(other, Iterable):
                return NotImplemented
            other = self._from_iterable(other)
        return (self - other) | (other - self)

    __rxor__ = __xor__

    def _hash(self):
        """An order-independent hash of the elements (as frozenset's), for immutable
        subclasses that want to be hashable: `__hash__ = Set._hash`."""
        mask = 2 ** 64 - 1
        n = len(self)
        h = 1927868237 * (n + 1) & mask
        for x in self:
            hx = hash(x)
            h ^= (hx ^ (hx << 16) ^ 89869747) * 3644798167 & mask
        h ^= (h >> 11) ^ (h >> 25)
        h = (h * 69069 + 907133923) & mask
        if h >= 2 ** 63:
            h -= 2 ** 64
        if h == -1:
            h = 590923713
        return h


class MutableSet(Set):
    """A mutable set: concrete subclasses also define add and discard."""

    __slots__ = ()

    @_abstractmethod
    def add(self, value):
        """Add an element."""
        raise NotImplementedError

    @_abstractmethod
    def discard(self, value):
        """Remove an element. Do not raise an exception if absent."""
        raise NotImplementedError

    def remove(self, value):
        """Remove an element. If not a member, raise a KeyError."""
        if value not in self:
            raise KeyError(value)
        self.discard(value)

    def pop(self):
        """Return the popped value. Raise KeyError if empty."""
        it = iter(self)
        try:
            value = next(it)
        except StopIteration:
            raise KeyError from None
        self.discard(value)
        return value

    def clear(self):
        """This is slow (creates N new iterators!) but effective."""
        try:
            while True:
                self.pop()
        except KeyError:
            pass

    def __ior__(self, it):
        for value in it:
            self.add(value)
        return self

    def __iand__(self, it):
        for value in (self - it):
            self.discard(value)
        return self

    def __ixor__(self, it):
        if it is self:
            self.clear()
        else:
            if not isinstance(it, Set):
                it = self._from_iterable(it)
            for value in it:
                if value in self:
                    self.discard(value)
                else:
                    self.add(value)
        return self

    def __isub__(self, it):
        if it is self:
            self.clear()
        else:
            for value in it:
                self.discard(value)
        return self


# Mappings.

class Mapping(Collection):
    """A read-only mapping: concrete subclasses define __getitem__, __iter__ and __len__."""

    __slots__ = ()

    @_abstractmethod
    def __getitem__(self, key):
        raise KeyError

    def get(self, key, default=None):
        'D.get(k[,d]) -> D[k] if k in D, else d.  d defaults to None.'
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key):
        try:
            self[key]
        except KeyError:
            return False
        else:
            return True

    def keys(self):
        "D.keys() -> a set-like object providing a view on D's keys"
        return KeysView(self)

    def items(self):
        "D.items() -> a set-like object providing a view on D's items"
        return ItemsView(self)

    def values(self):
        "D.values() -> an object providing a view on D's values"
        return ValuesView(self)

    def __eq__(self, other):
        if not isinstance(other, Mapping):
            return NotImplemented
        return dict(self.items()) == dict(other.items())

    __reversed__ = None


class MappingView(Sized):
    __slots__ = ('_mapping',)

    def __init__(self, mapping):
        self._mapping = mapping

    def __len__(self):
        return len(self._mapping)

    def __repr__(self):
        return f'{self.__class__.__name__}({self._mapping!r})'

    __class_getitem__ = classmethod(_class_getitem)


class KeysView(MappingView, Set):
    __slots__ = ()

    @classmethod
    def _from_iterable(cls, it):
        return set(it)

    def __contains__(self, key):
        return key in self._mapping

    def __iter__(self):
        yield from self._mapping


class ItemsView(MappingView, Set):
    __slots__ = ()

    @classmethod
    def _from_iterable(cls, it):
        return set(it)

    def __contains__(self, item):
        key, value = item
        try:
            v = self._mapping[key]
        except KeyError:
            return False
        else:
            return v is value or v == value

    def __iter__(self):
        for key in self._mapping:
            yield (key, self._mapping[key])


class ValuesView(MappingView, Collection):
    __slots__ = ()

    def __contains__(self, value):
        for key in self._mapping:
            v = self._mapping[key]
            if v is value or v == value:
                return True
        return False

    def __iter__(self):
        for key in self._mapping:
            yield self._mapping[key]


class MutableMapping(Mapping):
    """A mutable mapping: concrete subclasses also define __setitem__ and __delitem__."""

    __slots__ = ()

    @_abstractmethod
    def __setitem__(self, key, value):
        raise KeyError

    @_abstractmethod
    def __delitem__(self, key):
        raise KeyError

    __marker = object()

    def pop(self, key, default=__marker):
        '''D.pop(k[,d]) -> v, remove specified key and return the corresponding value.
          If key is not found, d is returned if given, otherwise KeyError is raised.
        '''
        try:
            value = self[key]
        except KeyError:
            if default is self.__marker:
                raise
            return default
        else:
            del self[key]
            return value

    def popitem(self):
        '''D.popitem() -> (k, v), remove and return some (key, value) pair
           as a 2-tuple; but raise KeyError if D is empty.
        '''
        try:
            key = next(iter(self))
        except StopIteration:
            raise KeyError from None
        value = self[key]
        del self[key]
        return key, value

    def clear(self):
        'D.clear() -> None.  Remove all items from D.'
        try:
            while True:
                self.popitem()
        except KeyError:
            pass

    def update(self, other=(), /, **kwds):
        ''' D.update([E, ]**F) -> None.  Update D from mapping/iterable E and F.'''
        if isinstance(other, Mapping):
            for key in other:
                self[key] = other[key]
        elif hasattr(other, "keys"):
            for key in other.keys():
                self[key] = other[key]
        else:
            for key, value in other:
                self[key] = value
        for key, value in kwds.items():
            self[key] = value

    def setdefault(self, key, default=None):
        'D.setdefault(k[,d]) -> D.get(k,d), also set D[k]=d if k not in D'
        try:
            return self[key]
        except KeyError:
            self[key] = default
        return default


# Sequences.

class Sequence(Reversible, Collection):
    """All the operations on a read-only sequence: concrete subclasses define __getitem__
    and __len__."""

    __slots__ = ()

    @_abstractmethod
    def __getitem__(self, index):
        raise IndexError

    def __iter__(self):
        i = 0
        try:
            while True:
                v = self[i]
                yield v
                i += 1
        except IndexError:
            return

    def __contains__(self, value):
        for v in self:
            if v is value or v == value:
                return True
        return False

    def __reversed__(self):
        for i in reversed(range(len(self))):
            yield self[i]

    def index(self, value, start=0, stop=None):
        '''S.index(value, [start, [stop]]) -> integer -- return first index of value.
           Raises ValueError if the value is not present.
        '''
        if start is not None and start < 0:
            start = max(len(self) + start, 0)
        if stop is not None and stop < 0:
            stop += len(self)
        i = start
        while stop is None or i < stop:
            try:
                v = self[i]
            except IndexError:
                break
            if v is value or v == value:
                return i
            i += 1
        raise ValueError

    def count(self, value):
        'S.count(value) -> integer -- return number of occurrences of value'
        return sum(1 for v in self if v is value or v == value)


class ByteString(Sequence):
    """This unifies bytes and bytearray."""

    __slots__ = ()


class MutableSequence(Sequence):
    """A mutable sequence: concrete subclasses also define __setitem__, __delitem__ and
    insert."""

    __slots__ = ()

    @_abstractmethod
    def __setitem__(self, index, value):
        raise IndexError

    @_abstractmethod
    def __delitem__(self, index):
        raise IndexError

    @_abstractmethod
    def insert(self, index, value):
        'S.insert(index, value) -- insert value before index'
        raise IndexError

    def append(self, value):
        'S.append(value) -- append value to the end of the sequence'
        self.insert(len(self), value)

    def clear(self):
        'S.clear() -> None -- remove all items from S'
        try:
            while True:
                self.pop()
        except IndexError:
            pass

    def reverse(self):
        'S.reverse() -- reverse *IN PLACE*'
        n = len(self)
        for i in range(n // 2):
            self[i], self[n - i - 1] = self[n - i - 1], self[i]

    def extend(self, values):
        'S.extend(iterable) -- extend sequence by appending elements from the iterable'
        if values is self:
            values = list(values)
        for v in values:
            self.append(v)

    def pop(self, index=-1):
        '''S.pop([index]) -> item -- remove and return item at index (default last).
           Raise IndexError if list is empty or index is out of range.
        '''
        v = self[index]
        del self[index]
        return v

    def remove(self, value):
        '''S.remove(value) -- remove first occurrence of value.
           Raise ValueError if the value is not present.
        '''
        del self[self.index(value)]

    def __iadd__(self, values):
        self.extend(values)
        return self


# Builtin types, registered as CPython registers them. On the PVM the registrations also cover
# builtins whose methods the hooks cannot see (see the module docstring).

def _gen():
    yield


async def _coro():
    pass


def _func():
    pass


class _C:
    def _m(self):
        pass


_iterator = type(iter(()))
_generator = type(_gen())
_c = _coro()
_coroutine = type(_c)
_c.close()
del _c
_dict_keys = type({}.keys())
_dict_values = type({}.values())
_dict_items = type({}.items())

for _t in (_iterator, type(iter([])), type(iter('')), type(iter(range(0))), type(iter({})),
           type(iter(set())), type(reversed([])), type(zip()), type(map(abs, ())),
           type(filter(None, ())), type(enumerate(()))):
    if not issubclass(_t, Iterator):
        Iterator.register(_t)
if not issubclass(_generator, Generator):
    Generator.register(_generator)
if not issubclass(_coroutine, Coroutine):
    Coroutine.register(_coroutine)
for _t in (type(len), type(_func), type(_C()._m)):
    if not issubclass(_t, Callable):
        Callable.register(_t)
for _t in (dict, _dict_keys, _dict_values, _dict_items):
    if not issubclass(_t, Reversible):
        Reversible.register(_t)

Set.register(frozenset)
MutableSet.register(set)
MutableMapping.register(dict)
KeysView.register(_dict_keys)
ValuesView.register(_dict_values)
ItemsView.register(_dict_items)
Sequence.register(tuple)
Sequence.register(str)
Sequence.register(range)
MutableSequence.register(list)
MutableSequence.register(bytearray)
ByteString.register(bytes)
ByteString.register(bytearray)

del _gen, _coro, _func, _C, _t, _iterator, _generator, _coroutine
del _dict_keys, _dict_values, _dict_items
