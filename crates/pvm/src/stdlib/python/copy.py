"""copy for the PVM: shallow and deep copy operations.

Covers: copy(x) and deepcopy(x, memo=None) for the builtin atomic types (returned as is),
list, dict, set, frozenset, tuple, bytearray, and instances of user classes (including
subclasses of list/dict/set/tuple, namedtuples and classes with __slots__): the __copy__ and
__deepcopy__(memo) hooks, __getnewargs__, __getstate__/__setstate__, the shared memo that
preserves aliasing and cycles, and tuples that deep-copy to themselves when all their items
do. Error (alias error) is exported.

Differences from CPython: no copyreg/__reduce_ex__ protocol (objects are rebuilt as
cls.__new__(cls, *getnewargs) + state + list/dict items, which is what __reduce_ex__(4)
produces for ordinary classes); a user-defined __reduce__/__reduce_ex__ is ignored. The memo
is keyed by object.__hash__(x) (an identity value), not id(x), which the PVM does not offer;
so a __deepcopy__ hook storing memo[id(self)] does not interact with our lookups. Written
for the PVM from the documented behaviour; builtins only.
"""

__all__ = ["Error", "copy", "deepcopy"]


class Error(Exception):
    """Raised for objects that cannot be copied."""


error = Error


def _function():
    pass


# Immutable (or identity-only) values: both copy and deepcopy return them unchanged.
_ATOMIC = (type(None), int, float, bool, complex, str, bytes, type, range, slice,
           type(Ellipsis), type(NotImplemented), type(_function), type(len), property)

_identity = object.__hash__


def copy(x):
    """Shallow copy of x."""
    cls = type(x)
    if cls in _ATOMIC or cls is tuple or cls is frozenset:
        return x
    if cls is list or cls is dict or cls is set or cls is bytearray:
        return x.copy()
    if issubclass(cls, type):
        return x
    copier = getattr(cls, "__copy__", None)
    if copier is not None:
        return copier(x)
    return _reconstruct(x, None)


def deepcopy(x, memo=None, _nil=[]):
    """Deep copy of x; `memo` maps identities of already-copied objects to their copies."""
    if memo is None:
        memo = {}
    d = _identity(x)
    y = memo.get(d, _nil)
    if y is not _nil:
        return y
    cls = type(x)
    if cls in _ATOMIC or issubclass(cls, type):
        y = x
    elif cls is list:
        y = []
        memo[d] = y
        for a in x:
            y.append(deepcopy(a, memo))
    elif cls is dict:
        y = {}
        memo[d] = y
        for key, value in x.items():
            y[deepcopy(key, memo)] = deepcopy(value, memo)
    elif cls is tuple:
        items = [deepcopy(a, memo) for a in x]
        # The tuple may have been copied while copying its items (a cycle through a list).
        if d in memo:
            return memo[d]
        y = x
        for k, j in zip(x, items):
            if k is not j:
                y = tuple(items)
                break
    elif cls is set:
        y = set()
        memo[d] = y
        for a in x:
            y.add(deepcopy(a, memo))
    elif cls is frozenset:
        y = frozenset([deepcopy(a, memo) for a in x])
    elif cls is bytearray:
        y = bytearray(x)
    else:
        copier = getattr(x, "__deepcopy__", None)
        if copier is not None:
            y = copier(memo)
        else:
            y = _reconstruct(x, memo)
    if y is not x:
        memo[d] = y
        _keep_alive(x, memo)
    return y


def _keep_alive(x, memo):
    # Keep originals alive for as long as the memo lives, so identities cannot be reused.
    key = _identity(memo)
    try:
        memo[key].append(x)
    except KeyError:
        memo[key] = [x]


def _newargs(x):
    getnewargs = getattr(x, "__getnewargs__", None)
    if getnewargs is not None:
        return tuple(getnewargs())
    for base in (tuple, int, float, str, bytes, frozenset, complex):
        if isinstance(x, base):
            return (base(x),)
    return ()


def _state(x):
    getstate = getattr(type(x), "__getstate__", None)
    if getstate is not None and getstate is not getattr(object, "__getstate__", None):
        return getstate(x)
    state = getattr(x, "__dict__", None)
    state = dict(state) if state else None
    slots = {}
    for klass in type(x).__mro__:
        names = klass.__dict__.get("__slots__", ())
        if isinstance(names, str):
            names = (names,)
        for name in names:
            if name in ("__dict__", "__weakref__"):
                continue
            if name.startswith("__") and not name.endswith("__"):
                name = f"_{klass.__name__.lstrip('_')}{name}"
            try:
                slots[name] = getattr(x, name)
            except AttributeError:
                pass
    if slots:
        return (state, slots)
    return state


def _reconstruct(x, memo):
    """Rebuild x as cls.__new__(cls, *args), then state, then list/dict items."""
    deep = memo is not None
    cls = type(x)
    args = _newargs(x)
    if deep and args:
        args = deepcopy(args, memo)
    try:
        y = cls.__new__(cls, *args)
    except TypeError:
        raise Error(f"un(deep)copyable object of type {cls}") from None
    if deep:
        memo[_identity(x)] = y
    state = _state(x)
    if state is not None:
        if deep:
            state = deepcopy(state, memo)
        setstate = getattr(cls, "__setstate__", None)
        if setstate is not None:
            setstate(y, state)
        else:
            if isinstance(state, tuple) and len(state) == 2:
                state, slotstate = state
            else:
                slotstate = None
            if state:
                y.__dict__.update(state)
            if slotstate:
                for key, value in slotstate.items():
                    setattr(y, key, value)
    if isinstance(x, list) and cls is not list:
        for item in x:
            y.append(deepcopy(item, memo) if deep else item)
    elif isinstance(x, dict) and cls is not dict:
        for key, value in x.items():
            if deep:
                key, value = deepcopy(key, memo), deepcopy(value, memo)
            y[key] = value
    elif isinstance(x, set) and cls is not set:
        for item in x:
            y.add(deepcopy(item, memo) if deep else item)
    return y

