"""typing for the PVM: type-hint names that cost nothing at run time.

Covers: every name a contract is likely to import from typing -- Any, Union, Optional,
List, Dict, Set, FrozenSet, Tuple, Type, Callable, Literal, ClassVar, Final, Annotated,
TypeAlias, TypeGuard, NoReturn, Never, Self, LiteralString, Required, NotRequired, the
abstract collection names (Iterable, Iterator, Sequence, Mapping, MutableMapping, ...),
TypeVar, AnyStr, Generic, Protocol, runtime_checkable, NamedTuple (class and functional
forms, built on collections.namedtuple), TypedDict (class and functional forms; instances are
plain dicts), NewType, cast, overload, final, no_type_check, get_origin, get_args,
get_type_hints, assert_never, assert_type, reveal_type, TYPE_CHECKING = False.

Subscriptions (Optional[int], Dict[str, List[int]], Callable[[int], str], MyGeneric[T], ...)
return small alias objects with CPython's reprs, __origin__/__args__, equality and hashing.
isinstance() and issubclass() against an unsubscripted alias check its origin class: List ->
list, and the abstract collection names are aliases of collections.abc's ABCs (Iterable ->
collections.abc.Iterable, AbstractSet -> collections.abc.Set), so the two modules agree.

Does not: evaluate string annotations (get_type_hints returns them as strings; the PVM has
no eval), check Protocol members structurally (isinstance against a Protocol class is
nominal), substitute ParamSpec/TypeVarTuple, or give NewType/NamedTuple the caller's
__module__ (no frame inspection). Needs from the VM: __mro_entries__ on base-class objects and
__orig_bases__ (PEP 560), __class_getitem__, and a metaclass __new__ with namespace for
NamedTuple/TypedDict classes. Imports collections (for NamedTuple) and collections.abc.
Written for the PVM from the documented behaviour.
"""

import collections
import collections.abc

TYPE_CHECKING = False


def _type_repr(obj):
    if isinstance(obj, type):
        if obj.__module__ == 'builtins':
            return obj.__qualname__
        return f'{obj.__module__}.{obj.__qualname__}'
    if obj is ...:
        return '...'
    if isinstance(obj, (list, tuple)):
        return '[' + ', '.join(_type_repr(a) for a in obj) + ']'
    if type(obj).__name__ == 'function':
        return obj.__name__
    return repr(obj)


def _type_check(arg):
    if arg is None:
        return type(None)
    return arg


class _Final:
    """Base of typing's helper objects (not meant to be subclassed by users)."""

    __slots__ = ()


class _GenericAlias(_Final):
    """A subscripted form such as List[int] or Union[int, str]."""

    def __init__(self, origin, args, name=None, special=None):
        self.__origin__ = origin
        self.__args__ = args
        self._name = name        # 'List', 'Union', ... or None for user generics
        self._special = special  # the unsubscripted object, for repr/get_origin
        self.__parameters__ = tuple(_collect_typevars(args))

    def __repr__(self):
        if self._name is None:
            head = _type_repr(self.__origin__)
        else:
            head = 'typing.' + self._name
        if self._name == 'Union':
            args = self.__args__
            if len(args) == 2 and type(None) in args:
                other = args[0] if args[1] is type(None) else args[1]
                return f'typing.Optional[{_type_repr(other)}]'
        if self._name == 'Callable' and len(self.__args__) == 2 and \
                isinstance(self.__args__[0], list):
            return f'{head}[{_type_repr(self.__args__[0])}, {_type_repr(self.__args__[1])}]'
        if self._name == 'Callable' and len(self.__args__) == 2 and self.__args__[0] is ...:
            return f'{head}[..., {_type_repr(self.__args__[1])}]'
        if not self.__args__ and self._name == 'Tuple':
            return f'{head}[()]'
        return f'{head}[{", ".join(_type_repr(a) for a in self.__args__)}]'

    def __eq__(self, other):
        if self._name == 'Union' and isinstance(other, _UnionType):
            return set(self.__args__) == set(other.__args__)
        if not isinstance(other, _GenericAlias):
            return NotImplemented
        if self._name == 'Union' and other._name == 'Union':
            return set(self.__args__) == set(other.__args__)
        return self.__origin__ == other.__origin__ and self.__args__ == other.__args__

    def __hash__(self):
        if self._name == 'Union':
            return hash(frozenset(self.__args__))
        return hash((self.__origin__, _hashable(self.__args__)))

    def __call__(self, *args, **kwargs):
        if self._name is not None and self._name != 'Annotated':
            raise TypeError(f"Type {self._name} cannot be instantiated; "
                            f"use {self.__origin__.__name__.lower()}() instead")
        result = self.__origin__(*args, **kwargs)
        try:
            result.__orig_class__ = self
        except AttributeError:
            pass
        return result

    def __mro_entries__(self, bases):
        if isinstance(self.__origin__, type):
            return (self.__origin__,)
        raise TypeError(f"Cannot subclass {self!r}")

    def __getitem__(self, params):
        # Substitute type variables: Dict[str, T][int] -> Dict[str, int].
        if not isinstance(params, tuple):
            params = (params,)
        if len(params) != len(self.__parameters__):
            raise TypeError(f"Too {'many' if len(params) > len(self.__parameters__) else 'few'}"
                            f" arguments for {self!r}")
        mapping = dict(zip(self.__parameters__, params))
        return _GenericAlias(self.__origin__, _subst(self.__args__, mapping),
                             self._name, self._special)

    def __instancecheck__(self, obj):
        raise TypeError("Subscripted generics cannot be used with class and instance checks")

    def __subclasscheck__(self, cls):
        raise TypeError("Subscripted generics cannot be used with class and instance checks")

    def __or__(self, other):
        return Union[self, other]

    def __ror__(self, other):
        return Union[other, self]

    def __getattr__(self, attr):
        if attr.startswith('__') and attr.endswith('__'):
            raise AttributeError(attr)
        return getattr(self.__origin__, attr)


_UnionType = type(int | str)  # the builtin X | Y union (types.UnionType)


def _hashable(args):
    return tuple(tuple(a) if isinstance(a, list) else a for a in args)


def _collect_typevars(args):
    found = []
    for a in args:
        if isinstance(a, TypeVar):
            if a not in found:
                found.append(a)
        elif isinstance(a, _GenericAlias):
            for t in a.__parameters__:
                if t not in found:
                    found.append(t)
        elif isinstance(a, list):
            for t in _collect_typevars(a):
                if t not in found:
                    found.append(t)
    return found


def _subst(args, mapping):
    out = []
    for a in args:
        if isinstance(a, TypeVar):
            out.append(mapping.get(a, a))
        elif isinstance(a, _GenericAlias) and a.__parameters__:
            out.append(a[tuple(mapping.get(t, t) for t in a.__parameters__)])
        elif isinstance(a, list):
            out.append(list(_subst(a, mapping)))
        else:
            out.append(a)
    return tuple(out)


class _SpecialForm(_Final):
    """Any, Union, Optional, ClassVar, Final, Literal, ... (subscription is per form)."""

    def __init__(self, name, getitem, doc=''):
        self._name = name
        self._getitem = getitem
        self.__doc__ = doc

    def __repr__(self):
        return 'typing.' + self._name

    def __getitem__(self, parameters):
        return self._getitem(self, parameters)

    def __call__(self, *args, **kwds):
        raise TypeError(f"Cannot instantiate {self!r}")

    def __mro_entries__(self, bases):
        raise TypeError(f"Cannot subclass {self!r}")

    def __instancecheck__(self, obj):
        raise TypeError(f"{self} cannot be used with isinstance()")

    def __subclasscheck__(self, cls):
        raise TypeError(f"{self} cannot be used with issubclass()")

    def __or__(self, other):
        return Union[self, other]

    def __ror__(self, other):
        return Union[other, self]

    def __reduce__(self):
        return self._name


def _not_subscriptable(self, parameters):
    raise TypeError(f"{self} is not subscriptable")


def _one_arg(self, parameters):
    if isinstance(parameters, tuple):
        if len(parameters) != 1:
            raise TypeError(f"{self} accepts only single type.")
        parameters = parameters[0]
    return _GenericAlias(self, (_type_check(parameters),), self._name, self)


def _union_getitem(self, parameters):
    if parameters == ():
        raise TypeError("Cannot take a Union of no types.")
    if not isinstance(parameters, tuple):
        parameters = (parameters,)
    flat = []
    for p in parameters:
        p = _type_check(p)
        if isinstance(p, _GenericAlias) and p._name == 'Union':
            members = p.__args__
        else:
            members = (p,)
        for m in members:
            if m not in flat:
                flat.append(m)
    if len(flat) == 1:
        return flat[0]
    return _GenericAlias(Union, tuple(flat), 'Union', Union)


def _optional_getitem(self, parameters):
    if isinstance(parameters, tuple):
        if len(parameters) != 1:
            raise TypeError(f"typing.Optional requires a single type. Got {parameters!r}.")
        parameters = parameters[0]
    return Union[parameters, None]


def _literal_getitem(self, parameters):
    if not isinstance(parameters, tuple):
        parameters = (parameters,)
    unique = []
    for p in parameters:
        if not any(p == u and type(p) is type(u) for u in unique):
            unique.append(p)
    return _GenericAlias(self, tuple(unique), 'Literal', self)


def _annotated_getitem(self, params):
    if not isinstance(params, tuple) or len(params) < 2:
        raise TypeError("Annotated[...] should be used with at least two arguments "
                        "(a type and an annotation).")
    alias = _GenericAlias(params[0], (params[0],) + tuple(params[1:]), 'Annotated', self)
    alias.__metadata__ = tuple(params[1:])
    return alias


def _concatenate_getitem(self, parameters):
    if not isinstance(parameters, tuple):
        parameters = (parameters,)
    return _GenericAlias(self, parameters, 'Concatenate', self)


Any = _SpecialForm('Any', _not_subscriptable, 'Special type indicating an unconstrained type.')
NoReturn = _SpecialForm('NoReturn', _not_subscriptable)
Never = _SpecialForm('Never', _not_subscriptable)
Self = _SpecialForm('Self', _not_subscriptable)
LiteralString = _SpecialForm('LiteralString', _not_subscriptable)
TypeAlias = _SpecialForm('TypeAlias', _not_subscriptable)
ClassVar = _SpecialForm('ClassVar', _one_arg)
Final = _SpecialForm('Final', _one_arg)
TypeGuard = _SpecialForm('TypeGuard', _one_arg)
Required = _SpecialForm('Required', _one_arg)
NotRequired = _SpecialForm('NotRequired', _one_arg)
Unpack = _SpecialForm('Unpack', _one_arg)
Union = _SpecialForm('Union', _union_getitem)
Optional = _SpecialForm('Optional', _optional_getitem)
Literal = _SpecialForm('Literal', _literal_getitem)
Annotated = _SpecialForm('Annotated', _annotated_getitem)
Concatenate = _SpecialForm('Concatenate', _concatenate_getitem)


class _SpecialGenericAlias(_Final):
    """An unsubscripted collection alias such as List or Iterable."""

    def __init__(self, origin, nparams, name, check=None):
        self.__origin__ = origin
        self._nparams = nparams  # -1: any number (Tuple)
        self._name = name
        self._check = check      # isinstance test for the abstract names

    def __repr__(self):
        return 'typing.' + self._name

    def __getitem__(self, params):
        if not isinstance(params, tuple):
            params = (params,)
        if self._name == 'Callable':
            return _callable_getitem(self, params)
        if self._name == 'Tuple':
            if params == ((),):
                params = ()
            return _GenericAlias(self.__origin__, tuple(_type_check(p) for p in params),
                                 self._name, self)
        if len(params) != self._nparams:
            raise TypeError(f"Too {'many' if len(params) > self._nparams else 'few'} "
                            f"arguments for {self!r}; actual {len(params)}, "
                            f"expected {self._nparams}")
        return _GenericAlias(self.__origin__, tuple(_type_check(p) for p in params),
                             self._name, self)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"Type {self._name} cannot be instantiated; "
                        f"use {self.__origin__.__name__}() instead")

    def __mro_entries__(self, bases):
        # As CPython: the origin (unless listed already), then Generic unless a later base
        # is generic itself.
        res = [] if self.__origin__ in bases else [self.__origin__]
        i = bases.index(self)
        for b in bases[i + 1:]:
            if isinstance(b, (_GenericAlias, _SpecialGenericAlias)) or (
                    isinstance(b, type) and issubclass(b, Generic)):
                break
        else:
            res.append(Generic)
        return tuple(res)

    def __instancecheck__(self, obj):
        if self._check is not None:
            return self._check(obj)
        return isinstance(obj, self.__origin__)

    def __subclasscheck__(self, cls):
        if self._check is not None:
            raise TypeError(f"issubclass() is not supported for {self!r} in the PVM")
        return issubclass(cls, self.__origin__)

    def __or__(self, other):
        return Union[self, other]

    def __ror__(self, other):
        return Union[other, self]


def _callable_getitem(self, params):
    if len(params) != 2:
        raise TypeError("Callable must be used as Callable[[arg, ...], result].")
    args, result = params
    if args is not ...:
        if not isinstance(args, list):
            raise TypeError(f"Callable[args, result]: args must be a list. Got {args!r}")
        args = [_type_check(a) for a in args]
    return _GenericAlias(self.__origin__, (args, _type_check(result)), 'Callable', self)


def _has(*names):
    def check(obj):
        t = type(obj)
        return all(getattr(t, n, None) is not None for n in names)
    return check


class _AbstractOrigin:
    """Stand-in origin for the abstract names whose CPython class lives in a module the PVM
    does not have (contextlib, io, re's Pattern/Match, the Supports* protocols); subclassing
    typing.ContextManager etc. gives a class deriving from this marker."""

    __slots__ = ()


def _abstract(name, nparams, *dunders, builtin=()):
    origin = type(name, (_AbstractOrigin,), {'__module__': 'collections.abc', '__slots__': ()})
    has = _has(*dunders)

    def check(obj):
        return isinstance(obj, builtin + (origin,)) or (bool(dunders) and has(obj))

    return _SpecialGenericAlias(origin, nparams, name, check)


List = _SpecialGenericAlias(list, 1, 'List')
Dict = _SpecialGenericAlias(dict, 2, 'Dict')
Set = _SpecialGenericAlias(set, 1, 'Set')
FrozenSet = _SpecialGenericAlias(frozenset, 1, 'FrozenSet')
Tuple = _SpecialGenericAlias(tuple, -1, 'Tuple')
Type = _SpecialGenericAlias(type, 1, 'Type')
DefaultDict = _SpecialGenericAlias(collections.defaultdict, 2, 'DefaultDict')
OrderedDict = _SpecialGenericAlias(collections.OrderedDict, 2, 'OrderedDict')
Counter = _SpecialGenericAlias(collections.Counter, 1, 'Counter')
Deque = _SpecialGenericAlias(collections.deque, 1, 'Deque')
ChainMap = _SpecialGenericAlias(collections.ChainMap, 2, 'ChainMap')
Callable = _SpecialGenericAlias(collections.abc.Callable, -1, 'Callable')
Iterable = _SpecialGenericAlias(collections.abc.Iterable, 1, 'Iterable')
Iterator = _SpecialGenericAlias(collections.abc.Iterator, 1, 'Iterator')
Reversible = _SpecialGenericAlias(collections.abc.Reversible, 1, 'Reversible')
Container = _SpecialGenericAlias(collections.abc.Container, 1, 'Container')
Collection = _SpecialGenericAlias(collections.abc.Collection, 1, 'Collection')
Sized = _SpecialGenericAlias(collections.abc.Sized, 0, 'Sized')
Hashable = _SpecialGenericAlias(collections.abc.Hashable, 0, 'Hashable')
Sequence = _SpecialGenericAlias(collections.abc.Sequence, 1, 'Sequence')
MutableSequence = _SpecialGenericAlias(collections.abc.MutableSequence, 1, 'MutableSequence')
Mapping = _SpecialGenericAlias(collections.abc.Mapping, 2, 'Mapping')
MutableMapping = _SpecialGenericAlias(collections.abc.MutableMapping, 2, 'MutableMapping')
AbstractSet = _SpecialGenericAlias(collections.abc.Set, 1, 'AbstractSet')
MutableSet = _SpecialGenericAlias(collections.abc.MutableSet, 1, 'MutableSet')
MappingView = _SpecialGenericAlias(collections.abc.MappingView, 1, 'MappingView')
KeysView = _SpecialGenericAlias(collections.abc.KeysView, 1, 'KeysView')
ItemsView = _SpecialGenericAlias(collections.abc.ItemsView, 2, 'ItemsView')
ValuesView = _SpecialGenericAlias(collections.abc.ValuesView, 1, 'ValuesView')
Generator = _SpecialGenericAlias(collections.abc.Generator, 3, 'Generator')
Awaitable = _SpecialGenericAlias(collections.abc.Awaitable, 1, 'Awaitable')
Coroutine = _SpecialGenericAlias(collections.abc.Coroutine, 3, 'Coroutine')
AsyncIterable = _SpecialGenericAlias(collections.abc.AsyncIterable, 1, 'AsyncIterable')
AsyncIterator = _SpecialGenericAlias(collections.abc.AsyncIterator, 1, 'AsyncIterator')
AsyncGenerator = _SpecialGenericAlias(collections.abc.AsyncGenerator, 2, 'AsyncGenerator')
ContextManager = _abstract('ContextManager', 1, '__enter__', '__exit__')
AsyncContextManager = _abstract('AsyncContextManager', 1, '__aenter__', '__aexit__')
ByteString = _SpecialGenericAlias(collections.abc.ByteString, 0, 'ByteString')
Text = str


class TypeVar(_Final):
    """Type variable: T = TypeVar('T'), optionally bound=... or constrained."""

    def __init__(self, name, *constraints, bound=None, covariant=False,
                 contravariant=False):
        if covariant and contravariant:
            raise ValueError("Bivariant types are not supported.")
        if constraints and bound is not None:
            raise TypeError("Constraints cannot be combined with bound=...")
        if len(constraints) == 1:
            raise TypeError("A single constraint is not allowed")
        self.__name__ = name
        self.__constraints__ = tuple(_type_check(c) for c in constraints)
        self.__bound__ = _type_check(bound) if bound is not None else None
        self.__covariant__ = bool(covariant)
        self.__contravariant__ = bool(contravariant)

    def __repr__(self):
        prefix = '+' if self.__covariant__ else '-' if self.__contravariant__ else '~'
        return prefix + self.__name__

    def __or__(self, other):
        return Union[self, other]

    def __ror__(self, other):
        return Union[other, self]


class ParamSpec(TypeVar):
    """Parameter specification variable (accepted, not interpreted)."""

    def __init__(self, name, *, bound=None, covariant=False, contravariant=False):
        super().__init__(name, bound=bound, covariant=covariant, contravariant=contravariant)


class TypeVarTuple(_Final):
    """Type variable tuple (accepted, not interpreted)."""

    def __init__(self, name):
        self.__name__ = name

    def __repr__(self):
        return self.__name__


AnyStr = TypeVar('AnyStr', bytes, str)


class Generic:
    """Base class for generic classes: class Box(Generic[T]) makes Box[int] valid."""

    __slots__ = ()
    _is_protocol = False

    def __class_getitem__(cls, params):
        if not isinstance(params, tuple):
            params = (params,)
        if cls is Generic or cls is Protocol:
            if not params:
                raise TypeError(f"Parameter list to {cls.__qualname__}[...] cannot be empty")
            for p in params:
                if not isinstance(p, (TypeVar, TypeVarTuple)):
                    raise TypeError(f"Parameters to {cls.__name__}[...] must all be "
                                    "type variables or parameter specification variables.")
            if len(set(params)) != len(params):
                raise TypeError(f"Parameters to {cls.__name__}[...] must all be unique")
        else:
            expected = getattr(cls, '__parameters__', ())
            if len(params) != len(expected):
                raise TypeError(
                    f"Too {'many' if len(params) > len(expected) else 'few'} arguments for "
                    f"{cls!r}; actual {len(params)}, expected {len(expected)}")
        return _GenericAlias(cls, params)

    def __init_subclass__(cls, *args, **kwargs):
        super().__init_subclass__(*args, **kwargs)
        tvars = []
        for base in cls.__dict__.get('__orig_bases__', ()):
            if isinstance(base, _GenericAlias):
                for t in base.__parameters__:
                    if t not in tvars:
                        tvars.append(t)
        cls.__parameters__ = tuple(tvars)


class Protocol(Generic):
    """Base class for protocol classes (structural types; checked nominally here)."""

    __slots__ = ()
    _is_protocol = True

    def __init_subclass__(cls, *args, **kwargs):
        super().__init_subclass__(*args, **kwargs)
        if not cls.__dict__.get('_is_protocol', False):
            cls._is_protocol = any(b is Protocol for b in cls.__bases__)


def runtime_checkable(cls):
    """Mark a protocol class as usable with isinstance() (nominal in the PVM)."""
    if not issubclass(cls, Generic) or not getattr(cls, '_is_protocol', False):
        raise TypeError('@runtime_checkable can be only applied to protocol classes,'
                        f' got {cls!r}')
    cls._is_runtime_protocol = True
    return cls


def cast(typ, val):
    """Return val unchanged (the type is for the checker only)."""
    return val


def assert_type(val, typ, /):
    """Return val unchanged."""
    return val


def reveal_type(obj, /):
    """Return obj unchanged (CPython prints to stderr; the PVM has no stderr)."""
    return obj


def assert_never(arg, /):
    """Raise AssertionError: this code should be unreachable."""
    value = repr(arg)
    if len(value) > 100:
        value = value[:100] + '...'
    raise AssertionError(f"Expected code to be unreachable, but got: {value}")


def _overload_dummy(*args, **kwds):
    raise NotImplementedError(
        "You should not call an overloaded function. "
        "A series of @overload-decorated functions "
        "outside a stub module should always be followed "
        "by an implementation that is not @overload-ed.")


def overload(func):
    """Decorator for overloaded signatures; the undecorated implementation must follow."""
    return _overload_dummy


def get_overloads(func):
    """Overloads are not recorded in the PVM: always []."""
    return []


def clear_overloads():
    """Nothing to clear (overloads are not recorded)."""


def final(f):
    """Mark a method or class final (sets __final__ = True where possible)."""
    try:
        f.__final__ = True
    except (AttributeError, TypeError):
        pass
    return f


def no_type_check(arg):
    """Mark arg as not type checked; returns it unchanged."""
    try:
        arg.__no_type_check__ = True
    except (AttributeError, TypeError):
        pass
    return arg


def no_type_check_decorator(decorator):
    """Make a decorator apply no_type_check to what it decorates."""
    def wrapped(*args, **kwds):
        return no_type_check(decorator(*args, **kwds))
    return wrapped


def dataclass_transform(**kwargs):
    """Decorator marking dataclass-like helpers; returns its argument unchanged."""
    def decorator(cls_or_fn):
        cls_or_fn.__dataclass_transform__ = kwargs
        return cls_or_fn
    return decorator


_BuiltinGenericAlias = type(list[int])  # types.GenericAlias (PEP 585)


def get_origin(tp):
    """The unsubscripted origin of an alias: List[int] -> list, Union[...] -> Union."""
    if isinstance(tp, _BuiltinGenericAlias):
        return tp.__origin__
    if isinstance(tp, _UnionType):
        return _UnionType
    if isinstance(tp, _GenericAlias):
        if tp._name == 'Annotated':
            return Annotated
        if isinstance(tp.__origin__, _SpecialForm):
            return tp.__origin__
        return tp.__origin__
    if tp is Generic:
        return Generic
    return None


def get_args(tp):
    """The arguments of an alias: Dict[str, int] -> (str, int)."""
    if isinstance(tp, (_GenericAlias, _BuiltinGenericAlias, _UnionType)):
        return tp.__args__
    return ()


def get_type_hints(obj, globalns=None, localns=None, include_extras=False):
    """Annotations of a class (merged along its MRO, base first) or function.
    String annotations are returned unevaluated."""
    if isinstance(obj, type):
        hints = {}
        for base in reversed(obj.__mro__):
            ann = base.__dict__.get('__annotations__', {})
            for name, value in ann.items():
                hints[name] = _strip(value, include_extras)
        return hints
    ann = getattr(obj, '__annotations__', None)
    if ann is None:
        raise TypeError(f'{obj!r} is not a module, class, method, or function.')
    return {name: _strip(value, include_extras) for name, value in ann.items()}


def _strip(tp, include_extras):
    if tp is None:
        return type(None)
    if not include_extras and isinstance(tp, _GenericAlias) and tp._name == 'Annotated':
        return tp.__origin__
    return tp


class NewType(_Final):
    """NewType('UserId', int): a callable returning its argument, for the checker."""

    def __init__(self, name, tp):
        self.__qualname__ = self.__name__ = name
        self.__supertype__ = tp
        self.__module__ = 'typing'

    def __call__(self, x):
        return x

    def __repr__(self):
        return f'{self.__module__}.{self.__qualname__}'

    def __mro_entries__(self, bases):
        raise TypeError(f"Cannot subclass an instance of NewType. Perhaps you were looking "
                        f"for: `{self.__name__} = NewType({self.__name__!r}, {self.__name__})`")


class ForwardRef(_Final):
    """A string annotation (kept, never evaluated)."""

    def __init__(self, arg, is_argument=True, module=None, *, is_class=False):
        if not isinstance(arg, str):
            raise TypeError(f"Forward reference must be a string -- got {arg!r}")
        self.__forward_arg__ = arg

    def __repr__(self):
        return f'ForwardRef({self.__forward_arg__!r})'

    def __eq__(self, other):
        if not isinstance(other, ForwardRef):
            return NotImplemented
        return self.__forward_arg__ == other.__forward_arg__

    def __hash__(self):
        return hash(self.__forward_arg__)


# --- NamedTuple ---------------------------------------------------------------------------

_NT_RESERVED = frozenset({'__new__', '__init__', '__slots__', '__getnewargs__', '_fields',
                          '_field_defaults', '_make', '_replace', '_asdict', '_source'})
_NT_SKIP = frozenset({'__module__', '__qualname__', '__annotations__', '__orig_bases__',
                      '__dict__', '__weakref__'})


def _make_nmtuple(name, fields, defaults, module):
    nm_tpl = collections.namedtuple(name, [n for n, _ in fields], defaults=defaults,
                                    module=module)
    nm_tpl.__annotations__ = dict(fields)
    return nm_tpl


class _NamedTupleMeta(type):
    def __new__(mcls, typename, bases, ns):
        for base in bases:
            if base is not _NamedTuple and base is not Generic:
                raise TypeError('can only inherit from a NamedTuple type and Generic')
        types = ns.get('__annotations__', {})
        default_names = []
        for field_name in types:
            if field_name in ns:
                default_names.append(field_name)
            elif default_names:
                raise TypeError(f"Non-default namedtuple field {field_name} "
                                f"cannot follow default field"
                                f"{'s' if len(default_names) > 1 else ''} "
                                f"{', '.join(default_names)}")
        nm_tpl = _make_nmtuple(typename, list(types.items()),
                               [ns[n] for n in default_names], ns.get('__module__'))
        for key, value in ns.items():
            if key in _NT_RESERVED:
                raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
            if key not in _NT_SKIP and key not in nm_tpl._fields:
                setattr(nm_tpl, key, value)
        return nm_tpl


_NamedTuple = type.__new__(_NamedTupleMeta, '_NamedTuple', (), {})


def NamedTuple(typename, fields=None, /, **kwargs):
    """Typed version of namedtuple: class P(NamedTuple): x: int, or NamedTuple('P', [...])."""
    if fields is None:
        fields = kwargs.items()
    elif kwargs:
        raise TypeError("Either list of fields or keywords can be provided to NamedTuple, "
                        "not both")
    return _make_nmtuple(typename, [(n, t) for n, t in fields], None, None)


NamedTuple.__mro_entries__ = lambda bases: (_NamedTuple,)


# --- TypedDict ----------------------------------------------------------------------------

class _TypedDictMeta(type):
    def __new__(mcls, name, bases, ns, total=True):
        for base in bases:
            if type(base) is not _TypedDictMeta and base is not Generic:
                raise TypeError('cannot inherit from both a TypedDict type '
                                'and a non-TypedDict base class')
        tp_dict = type.__new__(_TypedDictMeta, name, (dict,), ns)
        annotations = {}
        required = set()
        optional = set()
        for base in bases:
            annotations.update(base.__dict__.get('__annotations__', {}))
            required.update(base.__dict__.get('__required_keys__', ()))
            optional.update(base.__dict__.get('__optional_keys__', ()))
        own = ns.get('__annotations__', {})
        annotations.update(own)
        for key, tp in own.items():
            origin = tp._name if isinstance(tp, _GenericAlias) else None
            if origin == 'Required':
                required.add(key)
            elif origin == 'NotRequired':
                optional.add(key)
            elif total:
                required.add(key)
            else:
                optional.add(key)
        tp_dict.__annotations__ = annotations
        tp_dict.__required_keys__ = frozenset(required)
        tp_dict.__optional_keys__ = frozenset(optional)
        if not hasattr(tp_dict, '__total__'):
            tp_dict.__total__ = total
        return tp_dict

    def __call__(cls, *args, **kwargs):
        return dict(*args, **kwargs)

    def __subclasscheck__(cls, other):
        raise TypeError('TypedDict does not support instance and class checks')

    __instancecheck__ = __subclasscheck__


_TypedDict = type.__new__(_TypedDictMeta, 'TypedDict', (), {})


def TypedDict(typename, fields=None, /, *, total=True, **kwargs):
    """A dict type with typed keys: class Movie(TypedDict): name: str. Instances are dicts."""
    if fields is None:
        fields = kwargs
    ns = {'__annotations__': dict(fields), '__module__': 'typing'}
    return _TypedDictMeta(typename, (), ns, total=total)


TypedDict.__mro_entries__ = lambda bases: (_TypedDict,)


def is_typeddict(tp):
    """True for classes made with TypedDict."""
    return isinstance(tp, _TypedDictMeta)


# Generic IO names exist for imports only.
IO = _abstract('IO', 1)
TextIO = _abstract('TextIO', 0)
BinaryIO = _abstract('BinaryIO', 0)
Pattern = _abstract('Pattern', 1)
Match = _abstract('Match', 1)
SupportsAbs = _abstract('SupportsAbs', 1, '__abs__')
SupportsBytes = _abstract('SupportsBytes', 0, '__bytes__')
SupportsComplex = _abstract('SupportsComplex', 0, '__complex__')
SupportsFloat = _abstract('SupportsFloat', 0, '__float__')
SupportsIndex = _abstract('SupportsIndex', 0, '__index__')
SupportsInt = _abstract('SupportsInt', 0, '__int__')
SupportsRound = _abstract('SupportsRound', 1, '__round__')
