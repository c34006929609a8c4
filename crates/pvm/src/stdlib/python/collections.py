"""collections for the PVM: container datatypes.

Covers:
- namedtuple(typename, field_names, *, rename=False, defaults=None, module=None): a tuple
  subclass built WITHOUT exec (class made with type(), fields as property getters, __new__
  binding arguments itself with CPython's TypeError messages); _fields, _field_defaults,
  _make, _replace, _asdict, __match_args__, __getnewargs__, repr.
- defaultdict (dict subclass with __missing__, repr, copy, | operators).
- OrderedDict (move_to_end, popitem(last=), order-sensitive ==, 3.11 repr, | operators).
- Counter (update/subtract, most_common, elements, total, + - & | and in-place forms, unary
  + and -, rich comparisons, repr).
- deque (amortised O(1) at both ends, maxlen, rotate, extendleft, index, insert, remove,
  reverse, count, rich comparisons, + * and in-place forms, mutation-during-iteration check,
  repr with maxlen).
- ChainMap (a MutableMapping: lookups across maps, writes to maps[0], new_child, parents,
  keys/items/values views, | operators).
- UserDict, UserList, UserString: wrappers around a `data` dict/list/str with the full method
  sets of CPython's (a MutableMapping, a MutableSequence and a Sequence of collections.abc).
- the submodule collections.abc (its own file, collections.abc.py).

Does not: pickling, recursive-repr guards, or deque slicing/weakrefs. A namedtuple class reports __module__ 'collections' unless
module= is given (CPython inspects the caller's frame, which the PVM does not expose).
Written for the PVM from the documented behaviour; builtins only.
"""

_KEYWORDS = frozenset([
    'False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class',
    'continue', 'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global',
    'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return',
    'try', 'while', 'with', 'yield',
])

# collections.abc is a submodule of this package; importing it here runs it once and binds
# it as the attribute `abc` (CPython's collections imports _collections_abc the same way).
import collections.abc as _abc

_MISSING = object()


def _quoted_list(names):
    """CPython's list of argument names: 'a' / 'a' and 'b' / 'a', 'b', and 'c'."""
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        return quoted[0]
    if len(quoted) == 2:
        return f"{quoted[0]} and {quoted[1]}"
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def _bind(qualname, names, defaults, args, kwargs):
    """Bind args/kwargs to positional-or-keyword parameters `names` (after the implicit
    first parameter) the way CPython's frame setup does, with its exact error messages."""
    n = len(names)
    values = list(args[:n])
    values.extend([_MISSING] * (n - len(values)))
    for key, value in kwargs.items():
        try:
            j = names.index(key)
        except ValueError:
            raise TypeError(f"{qualname}() got an unexpected keyword argument '{key}'") from None
        if values[j] is not _MISSING:
            raise TypeError(f"{qualname}() got multiple values for argument '{key}'")
        values[j] = value
    if len(args) > n:
        ndef = len(defaults)
        if ndef:
            takes = f"from {n - ndef + 1} to {n + 1} positional arguments"
        else:
            takes = f"{n + 1} positional argument" + ("" if n == 0 else "s")
        given = len(args) + 1
        raise TypeError(f"{qualname}() takes {takes} but {given} "
                        f"{'was' if given == 1 else 'were'} given")
    missing = []
    for j, name in enumerate(names):
        if values[j] is _MISSING:
            if name in defaults:
                values[j] = defaults[name]
            else:
                missing.append(name)
    if missing:
        s = "" if len(missing) == 1 else "s"
        raise TypeError(f"{qualname}() missing {len(missing)} required positional "
                        f"argument{s}: {_quoted_list(missing)}")
    return values


def _field_getter(index, doc):
    return property(lambda self: self[index], doc=doc)


def namedtuple(typename, field_names, *, rename=False, defaults=None, module=None):
    """Return a new tuple subclass named `typename` with named fields."""
    if isinstance(field_names, str):
        field_names = field_names.replace(',', ' ').split()
    field_names = list(map(str, field_names))
    typename = str(typename)
    if rename:
        seen = set()
        for index, name in enumerate(field_names):
            if (not name.isidentifier() or name in _KEYWORDS
                    or name.startswith('_') or name in seen):
                field_names[index] = f'_{index}'
            seen.add(name)
    for name in [typename] + field_names:
        if type(name) is not str:
            raise TypeError('Type names and field names must be strings')
        if not name.isidentifier():
            raise ValueError(f'Type names and field names must be valid identifiers: {name!r}')
        if name in _KEYWORDS:
            raise ValueError(f'Type names and field names cannot be a keyword: {name!r}')
    seen = set()
    for name in field_names:
        if name.startswith('_') and not rename:
            raise ValueError(f'Field names cannot start with an underscore: {name!r}')
        if name in seen:
            raise ValueError(f'Encountered duplicate field name: {name!r}')
        seen.add(name)

    field_defaults = {}
    if defaults is not None:
        defaults = tuple(defaults)
        if len(defaults) > len(field_names):
            raise TypeError('Got more default values than field names')
        field_defaults = dict(zip(field_names[len(field_names) - len(defaults):], defaults))

    fields = tuple(field_names)
    num_fields = len(fields)
    new_qualname = f'{typename}.__new__'

    def __new__(_cls, *args, **kwargs):
        if not kwargs and len(args) == num_fields:
            return tuple.__new__(_cls, args)
        return tuple.__new__(_cls, _bind(new_qualname, fields, field_defaults, args, kwargs))

    __new__.__name__ = '__new__'
    __new__.__qualname__ = new_qualname
    __new__.__doc__ = f'Create new instance of {typename}({", ".join(fields)})'

    @classmethod
    def _make(cls, iterable):
        result = tuple.__new__(cls, iterable)
        if len(result) != num_fields:
            raise TypeError(f'Expected {num_fields} arguments, got {len(result)}')
        return result

    def _replace(self, /, **kwds):
        result = self._make([kwds.pop(name, value) for name, value in zip(fields, self)])
        if kwds:
            raise ValueError(f'Got unexpected field names: {list(kwds)!r}')
        return result

    def __repr__(self):
        inner = ", ".join(f"{name}={value!r}" for name, value in zip(fields, self))
        return f"{self.__class__.__name__}({inner})"

    def _asdict(self):
        return dict(zip(self._fields, self))

    def __getnewargs__(self):
        return tuple(self)

    namespace = {
        '__doc__': f'{typename}({", ".join(fields)})',
        '__slots__': (),
        '_fields': fields,
        '_field_defaults': field_defaults,
        '__new__': __new__,
        '_make': _make,
        '_replace': _replace,
        '__repr__': __repr__,
        '_asdict': _asdict,
        '__getnewargs__': __getnewargs__,
        '__match_args__': fields,
        '__module__': 'collections' if module is None else module,
    }
    for index, name in enumerate(fields):
        namespace[name] = _field_getter(index, f'Alias for field number {index}')
    return type(typename, (tuple,), namespace)


class defaultdict(dict):
    """dict whose missing keys are created by calling default_factory()."""

    def __init__(self, default_factory=None, /, *args, **kwargs):
        if default_factory is not None and not callable(default_factory):
            raise TypeError('first argument must be callable or None')
        self.default_factory = default_factory
        dict.__init__(self, *args, **kwargs)

    def __missing__(self, key):
        if self.default_factory is None:
            raise KeyError(key)
        value = self.default_factory()
        self[key] = value
        return value

    def __repr__(self):
        return f'{type(self).__name__}({self.default_factory!r}, {dict.__repr__(self)})'

    def copy(self):
        return type(self)(self.default_factory, self)

    __copy__ = copy

    def __or__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        new = self.copy()
        new.update(other)
        return new

    def __ror__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        new = type(self)(self.default_factory, other)
        new.update(self)
        return new


class OrderedDict(dict):
    """dict that remembers order for equality and can reorder keys."""

    def move_to_end(self, key, last=True):
        """Move an existing key to the end (or the beginning if last is false)."""
        value = dict.__getitem__(self, key)  # KeyError(key) when absent, as CPython
        if last:
            dict.__delitem__(self, key)
            dict.__setitem__(self, key, value)
        else:
            # dict has no "insert first": rebuild with the key in front.
            dict.__delitem__(self, key)
            rest = list(dict.items(self))
            dict.clear(self)
            dict.__setitem__(self, key, value)
            for k, v in rest:
                dict.__setitem__(self, k, v)

    def popitem(self, last=True):
        """Remove and return a (key, value) pair, LIFO if last else FIFO."""
        if not self:
            raise KeyError('dictionary is empty')
        key = next(reversed(self)) if last else next(iter(self))
        value = dict.pop(self, key)
        return key, value

    def __eq__(self, other):
        if isinstance(other, OrderedDict):
            return dict.__eq__(self, other) and list(self) == list(other)
        return dict.__eq__(self, other)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None

    def __repr__(self):
        if not self:
            return f'{self.__class__.__name__}()'
        return f'{self.__class__.__name__}({list(self.items())!r})'

    def copy(self):
        return self.__class__(self)

    __copy__ = copy

    def __or__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        new = self.__class__(self)
        new.update(other)
        return new

    def __ror__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        new = self.__class__(other)
        new.update(self)
        return new

    def __ior__(self, other):
        self.update(other)
        return self


class Counter(dict):
    """dict subclass for counting hashable items (a multiset)."""

    def __init__(self, iterable=None, /, **kwds):
        dict.__init__(self)
        self.update(iterable, **kwds)

    def __missing__(self, key):
        return 0

    def total(self):
        """Sum of the counts."""
        return sum(self.values())

    def most_common(self, n=None):
        """List the n most common elements and their counts (ties in insertion order)."""
        ordered = sorted(self.items(), key=lambda kv: kv[1], reverse=True)
        return ordered if n is None else ordered[:max(n, 0)]

    def elements(self):
        """Iterator over elements repeating each as many times as its count."""
        for elem, count in self.items():
            for _ in range(count):
                yield elem

    @classmethod
    def fromkeys(cls, iterable, v=None):
        raise NotImplementedError(
            'Counter.fromkeys() is undefined.  Use Counter(iterable) instead.')

    def update(self, iterable=None, /, **kwds):
        """Add counts from an iterable of elements or a mapping of counts."""
        if iterable is not None:
            if isinstance(iterable, _abc.Mapping):
                if self:
                    for elem, count in iterable.items():
                        self[elem] = count + self.get(elem, 0)
                else:
                    dict.update(self, iterable)
            else:
                get = self.get
                for elem in iterable:
                    self[elem] = get(elem, 0) + 1
        if kwds:
            self.update(kwds)

    def subtract(self, iterable=None, /, **kwds):
        """Subtract counts; counts may go to zero or below."""
        if iterable is not None:
            if isinstance(iterable, _abc.Mapping):
                for elem, count in iterable.items():
                    self[elem] = self.get(elem, 0) - count
            else:
                for elem in iterable:
                    self[elem] = self.get(elem, 0) - 1
        if kwds:
            self.subtract(kwds)

    def copy(self):
        return self.__class__(self)

    __copy__ = copy

    def __delitem__(self, elem):
        if elem in self:
            dict.__delitem__(self, elem)

    def __repr__(self):
        if not self:
            return f'{self.__class__.__name__}()'
        try:
            d = dict(self.most_common())
        except TypeError:
            d = dict(self)
        return f'{self.__class__.__name__}({d!r})'

    # Multiset comparisons (3.10+): missing elements count as zero.
    def __eq__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        return all(self[e] == other[e] for c in (self, other) for e in c)

    def __ne__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        return not self == other

    def __le__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        return all(self[e] <= other[e] for c in (self, other) for e in c)

    def __lt__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        return self <= other and self != other

    def __ge__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        return all(self[e] >= other[e] for c in (self, other) for e in c)

    def __gt__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        return self >= other and self != other

    __hash__ = None

    def __add__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        result = Counter()
        for elem, count in self.items():
            newcount = count + other[elem]
            if newcount > 0:
                result[elem] = newcount
        for elem, count in other.items():
            if elem not in self and count > 0:
                result[elem] = count
        return result

    def __sub__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        result = Counter()
        for elem, count in self.items():
            newcount = count - other[elem]
            if newcount > 0:
                result[elem] = newcount
        for elem, count in other.items():
            if elem not in self and count < 0:
                result[elem] = 0 - count
        return result

    def __or__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        result = Counter()
        for elem, count in self.items():
            other_count = other[elem]
            newcount = other_count if count < other_count else count
            if newcount > 0:
                result[elem] = newcount
        for elem, count in other.items():
            if elem not in self and count > 0:
                result[elem] = count
        return result

    def __and__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        result = Counter()
        for elem, count in self.items():
            other_count = other[elem]
            newcount = count if count < other_count else other_count
            if newcount > 0:
                result[elem] = newcount
        return result

    def __pos__(self):
        result = Counter()
        for elem, count in self.items():
            if count > 0:
                result[elem] = count
        return result

    def __neg__(self):
        result = Counter()
        for elem, count in self.items():
            if count < 0:
                result[elem] = 0 - count
        return result

    def _keep_positive(self):
        for elem in [e for e, c in self.items() if not c > 0]:
            dict.__delitem__(self, elem)
        return self

    def __iadd__(self, other):
        for elem, count in other.items():
            self[elem] += count
        return self._keep_positive()

    def __isub__(self, other):
        for elem, count in other.items():
            self[elem] -= count
        return self._keep_positive()

    def __ior__(self, other):
        for elem, other_count in other.items():
            count = self[elem]
            if other_count > count:
                self[elem] = other_count
        return self._keep_positive()

    def __iand__(self, other):
        for elem, count in self.items():
            other_count = other[elem]
            if other_count < count:
                self[elem] = other_count
        return self._keep_positive()


class deque:
    """Double-ended queue with optional maximum length.

    Items live in self._buf[self._head:]. popleft advances _head (compacting the list once
    half of it is dead) and appendleft grows free room in front, so both ends are amortised
    O(1) without a linked structure."""

    __class_getitem__ = classmethod(type(list[int]))  # deque[int] is a types.GenericAlias

    __slots__ = ('_buf', '_head', '_maxlen', '_state')

    def __init__(self, iterable=(), maxlen=None):
        if maxlen is not None:
            if not isinstance(maxlen, int):
                raise TypeError('an integer is required')
            if maxlen < 0:
                raise ValueError('maxlen must be non-negative')
            if maxlen > 0x7FFFFFFFFFFFFFFF:
                # CPython stores maxlen in a C Py_ssize_t.
                raise OverflowError('Python int too large to convert to C ssize_t')
        self._buf = []
        self._head = 0
        self._maxlen = maxlen
        self._state = 0  # bumped on every mutation; iterators compare it
        self.extend(iterable)

    @property
    def maxlen(self):
        """maximum size of a deque or None if unbounded"""
        return self._maxlen

    def __len__(self):
        return len(self._buf) - self._head

    def __bool__(self):
        return len(self._buf) > self._head

    def _items(self):
        return self._buf[self._head:]

    def _reset(self, items):
        self._buf = items
        self._head = 0
        self._state += 1

    def append(self, x):
        """Add an element to the right side of the deque."""
        if self._maxlen == 0:
            return
        if self._maxlen is not None and len(self) >= self._maxlen:
            self._drop_left()
        self._buf.append(x)
        self._state += 1

    def appendleft(self, x):
        """Add an element to the left side of the deque."""
        if self._maxlen == 0:
            return
        if self._maxlen is not None and len(self) >= self._maxlen:
            self._buf.pop()
        if self._head == 0:
            room = max(8, len(self._buf))
            self._buf = [None] * room + self._buf
            self._head = room
        self._head -= 1
        self._buf[self._head] = x
        self._state += 1

    def _drop_left(self):
        x = self._buf[self._head]
        self._buf[self._head] = None
        self._head += 1
        if self._head >= 16 and self._head * 2 >= len(self._buf):
            self._buf = self._buf[self._head:]
            self._head = 0
        return x

    def pop(self):
        """Remove and return the rightmost element."""
        if not self:
            raise IndexError('pop from an empty deque')
        self._state += 1
        return self._buf.pop()

    def popleft(self):
        """Remove and return the leftmost element."""
        if not self:
            raise IndexError('pop from an empty deque')
        self._state += 1
        return self._drop_left()

    def extend(self, iterable):
        """Extend the right side of the deque with elements from the iterable."""
        if iterable is self:
            iterable = list(iterable)
        for x in iterable:
            self.append(x)

    def extendleft(self, iterable):
        """Extend the left side of the deque with elements from the iterable (reversed)."""
        if iterable is self:
            iterable = list(iterable)
        for x in iterable:
            self.appendleft(x)

    def clear(self):
        """Remove all elements from the deque."""
        self._reset([])

    def copy(self):
        """Return a shallow copy of a deque."""
        return self.__class__(self, self._maxlen)

    __copy__ = copy

    def count(self, value):
        """Return number of occurrences of value."""
        return sum(1 for x in self._items() if x is value or x == value)

    def index(self, value, start=0, stop=None):
        """Return first index of value."""
        items = self._items()
        n = len(items)
        if stop is None:
            stop = n
        if start < 0:
            start = max(start + n, 0)
        if stop < 0:
            stop = max(stop + n, 0)
        for i in range(start, min(stop, n)):
            x = items[i]
            if x is value or x == value:
                return i
        raise ValueError(f'{value!r} is not in deque')

    def insert(self, index, value):
        """Insert value before index."""
        if self._maxlen is not None and len(self) >= self._maxlen:
            raise IndexError('deque already at its maximum size')
        items = self._items()
        items.insert(index, value)
        self._reset(items)

    def remove(self, value):
        """Remove first occurrence of value."""
        items = self._items()
        for i, x in enumerate(items):
            if x is value or x == value:
                del items[i]
                self._reset(items)
                return
        raise ValueError(f'{value!r} is not in deque')

    def reverse(self):
        """Reverse *IN PLACE*."""
        items = self._items()
        items.reverse()
        self._reset(items)

    def rotate(self, n=1):
        """Rotate the deque n steps to the right (default n=1); negative: to the left."""
        if not -0x8000000000000000 <= n <= 0x7FFFFFFFFFFFFFFF:
            # CPython reads n as a C Py_ssize_t before looking at the length.
            raise OverflowError('Python int too large to convert to C ssize_t')
        size = len(self)
        if size <= 1:
            return
        n %= size
        if n:
            items = self._items()
            self._reset(items[-n:] + items[:-n])

    def _index(self, i):
        if not isinstance(i, int):
            if hasattr(type(i), '__index__'):
                i = type(i).__index__(i)
            else:
                raise TypeError(
                    f"sequence index must be integer, not '{type(i).__name__}'")
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError('deque index out of range')
        return self._head + i

    def __getitem__(self, i):
        return self._buf[self._index(i)]

    def __setitem__(self, i, value):
        self._buf[self._index(i)] = value

    def __delitem__(self, i):
        j = self._index(i) - self._head
        items = self._items()
        del items[j]
        self._reset(items)

    def __contains__(self, value):
        for x in self._items():
            if x is value or x == value:
                return True
        return False

    def __iter__(self):
        state = self._state
        for i in range(self._head, len(self._buf)):
            if self._state != state:
                raise RuntimeError('deque mutated during iteration')
            yield self._buf[i]
        if self._state != state:
            raise RuntimeError('deque mutated during iteration')

    def __reversed__(self):
        state = self._state
        for i in range(len(self._buf) - 1, self._head - 1, -1):
            if self._state != state:
                raise RuntimeError('deque mutated during iteration')
            yield self._buf[i]

    def __repr__(self):
        name = type(self).__name__
        if self._maxlen is None:
            return f'{name}({self._items()!r})'
        return f'{name}({self._items()!r}, maxlen={self._maxlen})'

    __hash__ = None

    def __eq__(self, other):
        if not isinstance(other, deque):
            return NotImplemented
        return self._items() == other._items()

    def __ne__(self, other):
        if not isinstance(other, deque):
            return NotImplemented
        return self._items() != other._items()

    def __lt__(self, other):
        if not isinstance(other, deque):
            return NotImplemented
        return self._items() < other._items()

    def __le__(self, other):
        if not isinstance(other, deque):
            return NotImplemented
        return self._items() <= other._items()

    def __gt__(self, other):
        if not isinstance(other, deque):
            return NotImplemented
        return self._items() > other._items()

    def __ge__(self, other):
        if not isinstance(other, deque):
            return NotImplemented
        return self._items() >= other._items()

    def __add__(self, other):
        if not isinstance(other, deque):
            raise TypeError(
                f'can only concatenate deque (not "{type(other).__name__}") to deque')
        new = self.copy()
        new.extend(other)
        return new

    def __iadd__(self, other):
        self.extend(other)
        return self

    def __mul__(self, n):
        return self.__class__(self._items() * n, self._maxlen)

    __rmul__ = __mul__

    def __imul__(self, n):
        items = self._items() * n
        if self._maxlen is not None and len(items) > self._maxlen:
            items = items[len(items) - self._maxlen:]
        self._reset(items)
        return self


_abc.MutableSequence.register(deque)


class ChainMap(_abc.MutableMapping):
    """A view of several mappings searched in order; writes go to maps[0]."""

    __class_getitem__ = classmethod(type(list[int]))

    def __init__(self, *maps):
        self.maps = list(maps) or [{}]

    def __missing__(self, key):
        raise KeyError(key)

    def __getitem__(self, key):
        for mapping in self.maps:
            try:
                return mapping[key]
            except KeyError:
                pass
        return self.__missing__(key)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __len__(self):
        return len(set().union(*self.maps))

    def __iter__(self):
        # Keys in the order of first appearance, scanning the last mapping first (CPython).
        d = {}
        for mapping in reversed(self.maps):
            for key in mapping:
                d[key] = None
        return iter(d)

    def __contains__(self, key):
        return any(key in m for m in self.maps)

    def __bool__(self):
        return any(self.maps)

    def __repr__(self):
        return f'{self.__class__.__name__}({", ".join(map(repr, self.maps))})'

    def __eq__(self, other):
        if not isinstance(other, _abc.Mapping):
            return NotImplemented
        return dict(self.items()) == dict(other.items())

    __hash__ = None

    @classmethod
    def fromkeys(cls, iterable, *args):
        return cls(dict.fromkeys(iterable, *args))

    def copy(self):
        """New ChainMap with a new copy of maps[0] and refs to maps[1:]."""
        return self.__class__(self.maps[0].copy(), *self.maps[1:])

    __copy__ = copy

    def new_child(self, m=None, **kwargs):
        """New ChainMap with a new map followed by all previous maps."""
        if m is None:
            m = kwargs
        elif kwargs:
            m.update(kwargs)
        return self.__class__(m, *self.maps)

    @property
    def parents(self):
        """New ChainMap from maps[1:]."""
        return self.__class__(*self.maps[1:])

    def __setitem__(self, key, value):
        self.maps[0][key] = value

    def __delitem__(self, key):
        try:
            del self.maps[0][key]
        except KeyError:
            raise KeyError(f'Key not found in the first mapping: {key!r}') from None

    def popitem(self):
        """Remove and return an item pair from maps[0]."""
        try:
            return self.maps[0].popitem()
        except KeyError:
            raise KeyError('No keys found in the first mapping.') from None

    def pop(self, key, *args):
        """Remove key from maps[0] and return its value."""
        try:
            return self.maps[0].pop(key, *args)
        except KeyError:
            raise KeyError(f'Key not found in the first mapping: {key!r}') from None

    def clear(self):
        """Clear maps[0], leaving maps[1:] intact."""
        self.maps[0].clear()

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, other=(), /, **kwds):
        self.maps[0].update(other, **kwds)

    def __ior__(self, other):
        self.maps[0].update(other)
        return self

    def __or__(self, other):
        if not isinstance(other, _abc.Mapping):
            return NotImplemented
        m = self.copy()
        m.maps[0].update(other)
        return m

    def __ror__(self, other):
        if not isinstance(other, _abc.Mapping):
            return NotImplemented
        m = dict(other)
        for child in reversed(self.maps):
            m.update(child)
        return self.__class__(m)


class UserDict(_abc.MutableMapping):
    """A dict wrapper for subclassing: the contents live in the real dict `self.data`."""

    def __init__(self, dict=None, /, **kwargs):
        self.data = {}
        if dict is not None:
            self.update(dict)
        if kwargs:
            self.update(kwargs)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, key):
        if key in self.data:
            return self.data[key]
        if hasattr(self.__class__, "__missing__"):
            return self.__class__.__missing__(self, key)
        raise KeyError(key)

    def __setitem__(self, key, item):
        self.data[key] = item

    def __delitem__(self, key):
        del self.data[key]

    def __iter__(self):
        return iter(self.data)

    # Membership asks the data, not __getitem__, so a __missing__ does not make every key
    # look present.
    def __contains__(self, key):
        return key in self.data

    def __repr__(self):
        return repr(self.data)

    def __or__(self, other):
        if isinstance(other, UserDict):
            return self.__class__(self.data | other.data)
        if isinstance(other, dict):
            return self.__class__(self.data | other)
        return NotImplemented

    def __ror__(self, other):
        if isinstance(other, UserDict):
            return self.__class__(other.data | self.data)
        if isinstance(other, dict):
            return self.__class__(other | self.data)
        return NotImplemented

    def __ior__(self, other):
        if isinstance(other, UserDict):
            self.data |= other.data
        else:
            self.data |= other
        return self

    def __copy__(self):
        inst = self.__class__.__new__(self.__class__)
        inst.__dict__.update(self.__dict__)
        # The copy gets its own data dict; set through __dict__ to bypass descriptors.
        inst.__dict__["data"] = self.__dict__["data"].copy()
        return inst

    def copy(self):
        if self.__class__ is UserDict:
            return UserDict(self.data.copy())
        # A subclass is copied with copy.copy (keeping its other attributes) over an empty
        # data dict, then refilled through __setitem__, as CPython does.
        import copy
        data = self.data
        try:
            self.data = {}
            c = copy.copy(self)
        finally:
            self.data = data
        c.update(self)
        return c

    @classmethod
    def fromkeys(cls, iterable, value=None):
        d = cls()
        for key in iterable:
            d[key] = value
        return d


class UserList(_abc.MutableSequence):
    """A list wrapper for subclassing: the contents live in the real list `self.data`."""

    def __init__(self, initlist=None):
        self.data = []
        if initlist is not None:
            if type(initlist) == type(self.data):
                self.data[:] = initlist
            elif isinstance(initlist, UserList):
                self.data[:] = initlist.data[:]
            else:
                self.data = list(initlist)

    def __repr__(self):
        return repr(self.data)

    def __lt__(self, other):
        return self.data < self.__cast(other)

    def __le__(self, other):
        return self.data <= self.__cast(other)

    def __eq__(self, other):
        return self.data == self.__cast(other)

    def __gt__(self, other):
        return self.data > self.__cast(other)

    def __ge__(self, other):
        return self.data >= self.__cast(other)

    def __cast(self, other):
        return other.data if isinstance(other, UserList) else other

    def __contains__(self, item):
        return item in self.data

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self.__class__(self.data[i])
        return self.data[i]

    def __setitem__(self, i, item):
        self.data[i] = item

    def __delitem__(self, i):
        del self.data[i]

    def __add__(self, other):
        if isinstance(other, UserList):
            return self.__class__(self.data + other.data)
        if isinstance(other, type(self.data)):
            return self.__class__(self.data + other)
        return self.__class__(self.data + list(other))

    def __radd__(self, other):
        if isinstance(other, UserList):
            return self.__class__(other.data + self.data)
        if isinstance(other, type(self.data)):
            return self.__class__(other + self.data)
        return self.__class__(list(other) + self.data)

    def __iadd__(self, other):
        if isinstance(other, UserList):
            self.data += other.data
        elif isinstance(other, type(self.data)):
            self.data += other
        else:
            self.data += list(other)
        return self

    def __mul__(self, n):
        return self.__class__(self.data * n)

    __rmul__ = __mul__

    def __imul__(self, n):
        self.data *= n
        return self

    def __copy__(self):
        inst = self.__class__.__new__(self.__class__)
        inst.__dict__.update(self.__dict__)
        inst.__dict__["data"] = self.__dict__["data"][:]
        return inst

    def append(self, item):
        self.data.append(item)

    def insert(self, i, item):
        self.data.insert(i, item)

    def pop(self, i=-1):
        return self.data.pop(i)

    def remove(self, item):
        self.data.remove(item)

    def clear(self):
        self.data.clear()

    def copy(self):
        return self.__class__(self)

    def count(self, item):
        return self.data.count(item)

    def index(self, item, *args):
        return self.data.index(item, *args)

    def reverse(self):
        self.data.reverse()

    def sort(self, /, *args, **kwds):
        self.data.sort(*args, **kwds)

    def extend(self, other):
        if isinstance(other, UserList):
            self.data.extend(other.data)
        else:
            self.data.extend(other)


class UserString(_abc.Sequence):
    """A str wrapper for subclassing: the text lives in the real str `self.data`. Methods
    returning text return instances of the subclass."""

    def __init__(self, seq):
        if isinstance(seq, str):
            self.data = seq
        elif isinstance(seq, UserString):
            self.data = seq.data[:]
        else:
            self.data = str(seq)

    def __str__(self):
        return str(self.data)

    def __repr__(self):
        return repr(self.data)

    def __int__(self):
        return int(self.data)

    def __float__(self):
        return float(self.data)

    def __complex__(self):
        return complex(self.data)

    def __hash__(self):
        return hash(self.data)

    def __getnewargs__(self):
        return (self.data[:],)

    def __eq__(self, string):
        if isinstance(string, UserString):
            return self.data == string.data
        return self.data == string

    def __lt__(self, string):
        if isinstance(string, UserString):
            return self.data < string.data
        return self.data < string

    def __le__(self, string):
        if isinstance(string, UserString):
            return self.data <= string.data
        return self.data <= string

    def __gt__(self, string):
        if isinstance(string, UserString):
            return self.data > string.data
        return self.data > string

    def __ge__(self, string):
        if isinstance(string, UserString):
            return self.data >= string.data
        return self.data >= string

    def __contains__(self, char):
        if isinstance(char, UserString):
            char = char.data
        return char in self.data

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        return self.__class__(self.data[index])

    def __add__(self, other):
        if isinstance(other, UserString):
            return self.__class__(self.data + other.data)
        if isinstance(other, str):
            return self.__class__(self.data + other)
        return self.__class__(self.data + str(other))

    def __radd__(self, other):
        if isinstance(other, str):
            return self.__class__(other + self.data)
        return self.__class__(str(other) + self.data)

    def __mul__(self, n):
        return self.__class__(self.data * n)

    __rmul__ = __mul__

    def __mod__(self, args):
        return self.__class__(self.data % args)

    def __rmod__(self, template):
        return self.__class__(str(template) % self)

    def capitalize(self):
        return self.__class__(self.data.capitalize())

    def casefold(self):
        return self.__class__(self.data.casefold())

    def center(self, width, *args):
        return self.__class__(self.data.center(width, *args))

    def count(self, sub, start=0, end=None):
        if isinstance(sub, UserString):
            sub = sub.data
        return self.data.count(sub, start, end)

    def removeprefix(self, prefix, /):
        if isinstance(prefix, UserString):
            prefix = prefix.data
        return self.__class__(self.data.removeprefix(prefix))

    def removesuffix(self, suffix, /):
        if isinstance(suffix, UserString):
            suffix = suffix.data
        return self.__class__(self.data.removesuffix(suffix))

    def encode(self, encoding='utf-8', errors='strict'):
        encoding = 'utf-8' if encoding is None else encoding
        errors = 'strict' if errors is None else errors
        return self.data.encode(encoding, errors)

    def endswith(self, suffix, start=0, end=None):
        return self.data.endswith(suffix, start, end)

    def expandtabs(self, tabsize=8):
        return self.__class__(self.data.expandtabs(tabsize))

    def find(self, sub, start=0, end=None):
        if isinstance(sub, UserString):
            sub = sub.data
        return self.data.find(sub, start, end)

    def format(self, /, *args, **kwds):
        return self.data.format(*args, **kwds)

    def format_map(self, mapping):
        return self.data.format_map(mapping)

    def index(self, sub, start=0, end=None):
        return self.data.index(sub, start, end)

    def isalpha(self):
        return self.data.isalpha()

    def isalnum(self):
        return self.data.isalnum()

    def isascii(self):
        return self.data.isascii()

    def isdecimal(self):
        return self.data.isdecimal()

    def isdigit(self):
        return self.data.isdigit()

    def isidentifier(self):
        return self.data.isidentifier()

    def islower(self):
        return self.data.islower()

    def isnumeric(self):
        return self.data.isnumeric()

    def isprintable(self):
        return self.data.isprintable()

    def isspace(self):
        return self.data.isspace()

    def istitle(self):
        return self.data.istitle()

    def isupper(self):
        return self.data.isupper()

    def join(self, seq):
        return self.data.join(seq)

    def ljust(self, width, *args):
        return self.__class__(self.data.ljust(width, *args))

    def lower(self):
        return self.__class__(self.data.lower())

    def lstrip(self, chars=None):
        return self.__class__(self.data.lstrip(chars))

    maketrans = str.maketrans

    def partition(self, sep):
        return self.data.partition(sep)

    def replace(self, old, new, maxsplit=-1):
        if isinstance(old, UserString):
            old = old.data
        if isinstance(new, UserString):
            new = new.data
        return self.__class__(self.data.replace(old, new, maxsplit))

    def rfind(self, sub, start=0, end=None):
        if isinstance(sub, UserString):
            sub = sub.data
        return self.data.rfind(sub, start, end)

    def rindex(self, sub, start=0, end=None):
        return self.data.rindex(sub, start, end)

    def rjust(self, width, *args):
        return self.__class__(self.data.rjust(width, *args))

    def rpartition(self, sep):
        return self.data.rpartition(sep)

    def rstrip(self, chars=None):
        return self.__class__(self.data.rstrip(chars))

    def split(self, sep=None, maxsplit=-1):
        return self.data.split(sep, maxsplit)

    def rsplit(self, sep=None, maxsplit=-1):
        return self.data.rsplit(sep, maxsplit)

    def splitlines(self, keepends=False):
        return self.data.splitlines(keepends)

    def startswith(self, prefix, start=0, end=None):
        return self.data.startswith(prefix, start, end)

    def strip(self, chars=None):
        return self.__class__(self.data.strip(chars))

    def swapcase(self):
        return self.__class__(self.data.swapcase())

    def title(self):
        return self.__class__(self.data.title())

    def translate(self, *args):
        return self.__class__(self.data.translate(*args))

    def upper(self):
        return self.__class__(self.data.upper())

    def zfill(self, width):
        return self.__class__(self.data.zfill(width))
