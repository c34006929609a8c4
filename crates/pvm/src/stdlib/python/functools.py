"""functools for the PVM: higher-order functions and operations on callables.

Covers: reduce, partial (with CPython's repr and nested-partial flattening), partialmethod,
update_wrapper, wraps, WRAPPER_ASSIGNMENTS, WRAPPER_UPDATES, lru_cache and cache (hits, misses,
LRU eviction, typed=, cache_info, cache_clear, cache_parameters), total_ordering, cmp_to_key,
cached_property, singledispatch (register(type), register(type, func), @register on an
annotated function, dispatch, registry) and singledispatchmethod.

Does not: dispatch singledispatch on ABC virtual subclasses (only the real MRO is walked), keep
a per-type dispatch cache, or lock anything (the PVM is single-threaded). The LRU order is kept
in a plain insertion-ordered dict, so eviction is deterministic. Written for the PVM from the
documented behaviour; uses only builtins.
"""

WRAPPER_ASSIGNMENTS = ('__module__', '__name__', '__qualname__', '__doc__', '__annotations__')
WRAPPER_UPDATES = ('__dict__',)

_MISSING = object()


def update_wrapper(wrapper, wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=WRAPPER_UPDATES):
    """Make `wrapper` look like `wrapped`: copy `assigned` attributes, merge `updated` dicts."""
    for attr in assigned:
        try:
            value = getattr(wrapped, attr)
        except AttributeError:
            continue
        setattr(wrapper, attr, value)
    for attr in updated:
        getattr(wrapper, attr).update(getattr(wrapped, attr, {}))
    # Set last so that copying wrapped.__dict__ cannot overwrite it with an older __wrapped__.
    wrapper.__wrapped__ = wrapped
    return wrapper


def wraps(wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=WRAPPER_UPDATES):
    """Decorator form of update_wrapper."""
    def decorate(wrapper):
        return update_wrapper(wrapper, wrapped, assigned, updated)
    return decorate


def reduce(function, sequence, *initial):
    """Fold `sequence` from the left with the two-argument `function`."""
    if len(initial) > 1:
        raise TypeError(f"reduce expected at most 3 arguments, got {2 + len(initial)}")
    try:
        it = iter(sequence)
    except TypeError:
        raise TypeError("reduce() arg 2 must support iteration") from None
    if initial:
        value = initial[0]
    else:
        value = next(it, _MISSING)
        if value is _MISSING:
            raise TypeError("reduce() of empty iterable with no initial value")
    for element in it:
        value = function(value, element)
    return value


class partial:
    """New function with partial application of the given arguments and keywords."""

    def __new__(cls, *args, **keywords):
        if not args:
            raise TypeError("type 'partial' takes at least one argument")
        func, args = args[0], args[1:]
        if not callable(func):
            raise TypeError("the first argument must be callable")
        # Flatten partial(partial(f, a), b) into partial(f, a, b), as CPython does unless a
        # subclass overrides __call__.
        if isinstance(func, partial) and type(func).__call__ is partial.__call__:
            args = func.args + args
            keywords = {**func.keywords, **keywords}
            func = func.func
        self = object.__new__(cls)
        self.func = func
        self.args = args
        self.keywords = keywords
        return self

    def __call__(self, *args, **keywords):
        keywords = {**self.keywords, **keywords}
        return self.func(*self.args, *args, **keywords)

    def __repr__(self):
        name = "functools.partial" if type(self) is partial else type(self).__name__
        parts = [repr(self.func)]
        parts.extend(repr(a) for a in self.args)
        parts.extend(f"{k}={v!r}" for k, v in self.keywords.items())
        return f"{name}({', '.join(parts)})"


class partialmethod:
    """Like partial, but a descriptor: binds like the method it wraps."""

    def __init__(self, func, /, *args, **keywords):
        if not callable(func) and not hasattr(func, "__get__"):
            raise TypeError(f"{func!r} is not callable or a descriptor")
        if isinstance(func, partialmethod):
            self.func = func.func
            self.args = func.args + args
            self.keywords = {**func.keywords, **keywords}
        else:
            self.func = func
            self.args = args
            self.keywords = keywords

    def __repr__(self):
        parts = [repr(self.func)]
        parts.extend(repr(a) for a in self.args)
        parts.extend(f"{k}={v!r}" for k, v in self.keywords.items())
        return f"functools.partialmethod({', '.join(parts)})"

    def _unbound(self):
        def _method(cls_or_self, /, *args, **keywords):
            keywords = {**self.keywords, **keywords}
            return self.func(cls_or_self, *self.args, *args, **keywords)
        _method.__isabstractmethod__ = self.__isabstractmethod__
        _method._partialmethod = self
        return _method

    def __get__(self, obj, cls=None):
        get = getattr(self.func, "__get__", None)
        result = None
        if get is not None:
            new_func = get(obj, cls)
            if new_func is not self.func:
                # A descriptor (classmethod, staticmethod, bound method) did the binding.
                result = partial(new_func, *self.args, **self.keywords)
                try:
                    result.__self__ = new_func.__self__
                except AttributeError:
                    pass
        if result is None:
            result = self._unbound().__get__(obj, cls)
        return result

    @property
    def __isabstractmethod__(self):
        return getattr(self.func, "__isabstractmethod__", False)


class _CacheInfo(tuple):
    """The (hits, misses, maxsize, currsize) named tuple returned by cache_info()."""

    __slots__ = ()
    _fields = ('hits', 'misses', 'maxsize', 'currsize')

    def __new__(cls, hits, misses, maxsize, currsize):
        return tuple.__new__(cls, (hits, misses, maxsize, currsize))

    hits = property(lambda self: self[0])
    misses = property(lambda self: self[1])
    maxsize = property(lambda self: self[2])
    currsize = property(lambda self: self[3])

    def _asdict(self):
        return dict(zip(self._fields, self))

    def __repr__(self):
        return "CacheInfo(hits=%r, misses=%r, maxsize=%r, currsize=%r)" % tuple(self)


_CacheInfo.__name__ = _CacheInfo.__qualname__ = "CacheInfo"
_KWD_MARK = object()


def _make_key(args, kwds, typed):
    key = args
    if kwds:
        key += (_KWD_MARK,)
        for item in kwds.items():
            key += item
    if typed:
        key += tuple(type(v) for v in args)
        if kwds:
            key += tuple(type(v) for v in kwds.values())
    elif len(key) == 1 and type(key[0]) in (int, str):
        # CPython keys a lone int/str argument by itself, not a 1-tuple; this is observable
        # (f(1) and f(1.0) are then distinct entries), so we do the same.
        return key[0]
    return key


def _lru_wrapper(user_function, maxsize, typed):
    # The dict keeps keys in recency order: a hit re-inserts its key at the end, and eviction
    # removes the first (least recently used) key.
    cache = {}
    stats = [0, 0]  # hits, misses

    def wrapper(*args, **kwds):
        if maxsize == 0:
            stats[1] += 1
            return user_function(*args, **kwds)
        key = _make_key(args, kwds, typed)
        result = cache.pop(key, _MISSING)
        if result is not _MISSING:
            stats[0] += 1
            cache[key] = result
            return result
        stats[1] += 1
        result = user_function(*args, **kwds)
        if key not in cache:
            # (If a re-entrant call already cached this key, that entry is kept.)
            if maxsize is not None and len(cache) >= maxsize:
                del cache[next(iter(cache))]
            cache[key] = result
        return result

    def cache_info():
        return _CacheInfo(stats[0], stats[1], maxsize, len(cache))

    def cache_clear():
        cache.clear()
        stats[0] = stats[1] = 0

    wrapper.cache_info = cache_info
    wrapper.cache_clear = cache_clear
    return wrapper


def lru_cache(maxsize=128, typed=False):
    """Memoize a function, keeping at most `maxsize` most recently used results."""
    if isinstance(maxsize, int):
        if maxsize < 0:
            maxsize = 0
    elif callable(maxsize) and isinstance(typed, bool):
        # Used as a bare @lru_cache decorator.
        user_function, maxsize = maxsize, 128
        wrapper = _lru_wrapper(user_function, maxsize, typed)
        wrapper.cache_parameters = lambda: {'maxsize': maxsize, 'typed': typed}
        return update_wrapper(wrapper, user_function)
    elif maxsize is not None:
        raise TypeError('Expected first argument to be an integer, a callable, or None')

    def decorating_function(user_function):
        wrapper = _lru_wrapper(user_function, maxsize, typed)
        wrapper.cache_parameters = lambda: {'maxsize': maxsize, 'typed': typed}
        return update_wrapper(wrapper, user_function)

    return decorating_function


def cache(user_function):
    """Unbounded memoization: lru_cache(maxsize=None)."""
    return lru_cache(maxsize=None)(user_function)


# total_ordering: each derived operator is computed from the class's own "root" operator and
# ==, returning NotImplemented whenever the root does.
def _derive(root, combine):
    def op(self, other):
        result = getattr(type(self), root)(self, other)
        if result is NotImplemented:
            return result
        return combine(self, other, result)
    return op


_CONVERT = {
    '__lt__': {
        '__gt__': lambda s, o, r: not r and s != o,
        '__le__': lambda s, o, r: r or s == o,
        '__ge__': lambda s, o, r: not r,
    },
    '__le__': {
        '__ge__': lambda s, o, r: not r or s == o,
        '__lt__': lambda s, o, r: r and s != o,
        '__gt__': lambda s, o, r: not r,
    },
    '__gt__': {
        '__lt__': lambda s, o, r: not r and s != o,
        '__ge__': lambda s, o, r: r or s == o,
        '__le__': lambda s, o, r: not r,
    },
    '__ge__': {
        '__le__': lambda s, o, r: not r or s == o,
        '__gt__': lambda s, o, r: r and s != o,
        '__lt__': lambda s, o, r: not r,
    },
}


def _defines(cls, name):
    for klass in cls.__mro__:
        if klass is object:
            return False
        if name in klass.__dict__:
            return klass.__dict__[name] is not None
    return False


def total_ordering(cls):
    """Class decorator filling in the missing rich comparisons from one of < <= > >=."""
    roots = {op for op in _CONVERT if _defines(cls, op)}
    if not roots:
        raise ValueError('must define at least one ordering operation: < > <= >=')
    root = max(roots)  # prefer __lt__ to __le__ to __gt__ to __ge__
    for opname, combine in _CONVERT[root].items():
        if opname not in roots:
            opfunc = _derive(root, combine)
            opfunc.__name__ = opfunc.__qualname__ = opname
            setattr(cls, opname, opfunc)
    return cls


def cmp_to_key(mycmp):
    """Convert an old-style cmp(a, b) function to a key= function."""
    class K:
        __slots__ = ['obj']

        def __init__(self, obj):
            self.obj = obj

        def __lt__(self, other):
            return mycmp(self.obj, other.obj) < 0

        def __gt__(self, other):
            return mycmp(self.obj, other.obj) > 0

        def __eq__(self, other):
            return mycmp(self.obj, other.obj) == 0

        def __le__(self, other):
            return mycmp(self.obj, other.obj) <= 0

        def __ge__(self, other):
            return mycmp(self.obj, other.obj) >= 0

        __hash__ = None

    K.__name__ = K.__qualname__ = "KeyWrapper"
    return K


class cached_property:
    """A property computed once per instance and then stored in the instance __dict__."""

    def __init__(self, func):
        self.func = func
        self.attrname = None
        self.__doc__ = func.__doc__

    def __set_name__(self, owner, name):
        if self.attrname is None:
            self.attrname = name
        elif name != self.attrname:
            raise TypeError(
                "Cannot assign the same cached_property to two different names "
                f"({self.attrname!r} and {name!r})."
            )

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        if self.attrname is None:
            raise TypeError(
                "Cannot use cached_property instance without calling __set_name__ on it.")
        try:
            cache = instance.__dict__
        except AttributeError:
            msg = (
                f"No '__dict__' attribute on {type(instance).__name__!r} "
                f"instance to cache {self.attrname!r} property."
            )
            raise TypeError(msg) from None
        val = cache.get(self.attrname, _MISSING)
        if val is _MISSING:
            val = self.func(instance)
            cache[self.attrname] = val
        return val


def _first_annotation(func):
    annotations = getattr(func, '__annotations__', None) or {}
    for name, ann in annotations.items():
        if name != 'return':
            return ann
    return None


def singledispatch(func):
    """Turn `func` into a generic function dispatching on the type of its first argument."""
    registry = {object: func}

    def dispatch(cls):
        for klass in cls.__mro__:
            if klass in registry:
                return registry[klass]
        return registry[object]

    def register(cls, func=None):
        if isinstance(cls, type):
            if func is None:
                return lambda f: register(cls, f)
        else:
            if func is not None:
                raise TypeError(
                    f"Invalid first argument to `register()`. {cls!r} is not a class.")
            func = cls
            cls = _first_annotation(func)
            if cls is None:
                raise TypeError(
                    f"Invalid first argument to `register()`: {func!r}. "
                    "Use either `@register(some_class)` or plain `@register` "
                    "on an annotated function.")
            if not isinstance(cls, type):
                raise TypeError(
                    f"Invalid annotation for {_first_name(func)!r}. {cls!r} is not a class.")
        registry[cls] = func
        return func

    funcname = getattr(func, '__name__', 'singledispatch function')

    def wrapper(*args, **kw):
        if not args:
            raise TypeError(f'{funcname} requires at least 1 positional argument')
        return dispatch(args[0].__class__)(*args, **kw)

    wrapper.register = register
    wrapper.dispatch = dispatch
    wrapper.registry = registry
    update_wrapper(wrapper, func)
    return wrapper


def _first_name(func):
    for name in (getattr(func, '__annotations__', None) or {}):
        if name != 'return':
            return name
    return None


class singledispatchmethod:
    """singledispatch for methods: dispatches on the first argument after self/cls."""

    def __init__(self, func):
        if not callable(func) and not hasattr(func, "__get__"):
            raise TypeError(f"{func!r} is not callable or a descriptor")
        self.dispatcher = singledispatch(func)
        self.func = func

    def register(self, cls, method=None):
        return self.dispatcher.register(cls, func=method)

    def __get__(self, obj, cls=None):
        def _method(*args, **kwargs):
            method = self.dispatcher.dispatch(args[0].__class__)
            return method.__get__(obj, cls)(*args, **kwargs)
        _method.__isabstractmethod__ = self.__isabstractmethod__
        _method.register = self.register
        update_wrapper(_method, self.func)
        return _method

    @property
    def __isabstractmethod__(self):
        return getattr(self.func, '__isabstractmethod__', False)
