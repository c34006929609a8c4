"""operator for the PVM: Python's operators as functions.

Covers every name in CPython 3.11's operator.__all__ (comparisons, logical and identity tests,
arithmetic and bitwise operators, sequence helpers concat/contains/countOf/indexOf/getitem/
setitem/delitem, in-place operators iadd ... ixor, index, length_hint, call, attrgetter with
dotted names, itemgetter, methodcaller with CPython's reprs) and the dunder aliases
(__add__ = add, ...).

Does not: pickle attrgetter/itemgetter/methodcaller. Written for the PVM from the documented
behaviour; builtins only.
"""

__all__ = ['abs', 'add', 'and_', 'attrgetter', 'call', 'concat', 'contains', 'countOf',
           'delitem', 'eq', 'floordiv', 'ge', 'getitem', 'gt', 'iadd', 'iand', 'iconcat',
           'ifloordiv', 'ilshift', 'imatmul', 'imod', 'imul', 'index', 'indexOf', 'inv',
           'invert', 'ior', 'ipow', 'irshift', 'is_', 'is_not', 'isub', 'itemgetter',
           'itruediv', 'ixor', 'le', 'length_hint', 'lshift', 'lt', 'matmul', 'methodcaller',
           'mod', 'mul', 'ne', 'neg', 'not_', 'or_', 'pos', 'pow', 'rshift', 'setitem', 'sub',
           'truediv', 'truth', 'xor']

_abs = abs
_builtin_iterator = type(iter(()))


def lt(a, b):
    "Same as a < b."
    return a < b


def le(a, b):
    "Same as a <= b."
    return a <= b


def eq(a, b):
    "Same as a == b."
    return a == b


def ne(a, b):
    "Same as a != b."
    return a != b


def ge(a, b):
    "Same as a >= b."
    return a >= b


def gt(a, b):
    "Same as a > b."
    return a > b


def not_(a):
    "Same as not a."
    return not a


def truth(a):
    "Return True if a is true, False otherwise."
    return True if a else False


def is_(a, b):
    "Same as a is b."
    return a is b


def is_not(a, b):
    "Same as a is not b."
    return a is not b


def abs(a):
    "Same as abs(a)."
    return _abs(a)


def add(a, b):
    "Same as a + b."
    return a + b


def and_(a, b):
    "Same as a & b."
    return a & b


def floordiv(a, b):
    "Same as a // b."
    return a // b


def index(a):
    "Same as a.__index__()."
    if type(a) is int:
        return a
    if isinstance(a, int):
        return int(a)  # bool and other int subclasses come back as exact ints
    method = getattr(type(a), '__index__', None)
    if method is None:
        raise TypeError(f"'{type(a).__name__}' object cannot be interpreted as an integer")
    result = method(a)
    if not isinstance(result, int):
        raise TypeError(f"__index__ returned non-int (type {type(result).__name__})")
    return result


def inv(a):
    "Same as ~a."
    return ~a


invert = inv


def lshift(a, b):
    "Same as a << b."
    return a << b


def mod(a, b):
    "Same as a % b."
    return a % b


def mul(a, b):
    "Same as a * b."
    return a * b


def matmul(a, b):
    "Same as a @ b."
    return a @ b


def neg(a):
    "Same as -a."
    return -a


def or_(a, b):
    "Same as a | b."
    return a | b


def pos(a):
    "Same as +a."
    return +a


def pow(a, b):
    "Same as a ** b."
    return a ** b


def rshift(a, b):
    "Same as a >> b."
    return a >> b


def sub(a, b):
    "Same as a - b."
    return a - b


def truediv(a, b):
    "Same as a / b."
    return a / b


def xor(a, b):
    "Same as a ^ b."
    return a ^ b


def _check_sequence(a):
    if not hasattr(type(a), '__getitem__') or isinstance(a, dict):
        raise TypeError(f"'{type(a).__name__}' object can't be concatenated")


def concat(a, b):
    "Same as a + b, for a and b sequences."
    _check_sequence(a)
    return a + b


def contains(a, b):
    "Same as b in a (note reversed operands)."
    return b in a


def countOf(a, b):
    "Return the number of items in a which are, or which equal, b."
    return sum(1 for i in a if i is b or i == b)


def delitem(a, b):
    "Same as del a[b]."
    del a[b]


def getitem(a, b):
    "Same as a[b]."
    return a[b]


def indexOf(a, b):
    "Return the first index of b in a."
    for i, j in enumerate(a):
        if j is b or j == b:
            return i
    raise ValueError('sequence.index(x): x not in sequence')


def setitem(a, b, c):
    "Same as a[b] = c."
    a[b] = c


def length_hint(obj, default=0):
    """Return len(obj), else obj.__length_hint__(), else default."""
    if not isinstance(default, int):
        raise TypeError(f"'{type(default).__name__}' object cannot be interpreted as an integer")
    try:
        return len(obj)
    except TypeError:
        pass
    if type(obj) is _builtin_iterator:
        # The PVM's builtin iterators share one type; their methods live on the values.
        bound = getattr(obj, '__length_hint__', None)
    else:
        hint = getattr(type(obj), '__length_hint__', None)
        bound = None if hint is None else (lambda: hint(obj))
    if bound is None:
        return default
    try:
        val = bound()
    except TypeError:
        return default
    if val is NotImplemented:
        return default
    if not isinstance(val, int):
        raise TypeError(f'__length_hint__ must be an integer, not {type(val).__name__}')
    if val < 0:
        raise ValueError('__length_hint__() should return >= 0')
    return val


def call(obj, /, *args, **kwargs):
    "Same as obj(*args, **kwargs)."
    return obj(*args, **kwargs)


class attrgetter:
    """attrgetter('a', 'b.c')(x) -> (x.a, x.b.c); one name returns the value itself."""

    __slots__ = ('_attrs', '_paths')

    def __init__(self, *names):
        if not names:
            raise TypeError('attrgetter expected 1 argument, got 0')
        for name in names:
            if not isinstance(name, str):
                raise TypeError('attribute name must be a string')
        self._attrs = names
        self._paths = tuple(tuple(name.split('.')) for name in names)

    def _resolve(self, obj, path):
        for name in path:
            obj = getattr(obj, name)
        return obj

    def __call__(self, obj):
        if len(self._paths) == 1:
            return self._resolve(obj, self._paths[0])
        return tuple(self._resolve(obj, p) for p in self._paths)

    def __repr__(self):
        return 'operator.attrgetter(%s)' % ', '.join(map(repr, self._attrs))


class itemgetter:
    """itemgetter(1, 3)(x) -> (x[1], x[3]); one item returns the value itself."""

    __slots__ = ('_items',)

    def __init__(self, *items):
        if not items:
            raise TypeError('itemgetter expected 1 argument, got 0')
        self._items = items

    def __call__(self, obj):
        if len(self._items) == 1:
            return obj[self._items[0]]
        return tuple(obj[i] for i in self._items)

    def __repr__(self):
        return 'operator.itemgetter(%s)' % ', '.join(map(repr, self._items))


class methodcaller:
    """methodcaller('name', *args, **kw)(x) -> x.name(*args, **kw)."""

    __slots__ = ('_name', '_args', '_kwargs')

    def __init__(self, *args, **kwargs):
        if not args:
            raise TypeError('methodcaller needs at least one argument, the method name')
        name, args = args[0], args[1:]
        if not isinstance(name, str):
            raise TypeError('method name must be a string')
        self._name = name
        self._args = args
        self._kwargs = kwargs

    def __call__(self, obj):
        return getattr(obj, self._name)(*self._args, **self._kwargs)

    def __repr__(self):
        args = [repr(self._name)]
        args.extend(map(repr, self._args))
        args.extend(f'{k}={v!r}' for k, v in self._kwargs.items())
        return 'operator.methodcaller(%s)' % ', '.join(args)


def iadd(a, b):
    "Same as a += b."
    a += b
    return a


def iand(a, b):
    "Same as a &= b."
    a &= b
    return a


def iconcat(a, b):
    "Same as a += b, for a and b sequences."
    _check_sequence(a)
    a += b
    return a


def ifloordiv(a, b):
    "Same as a //= b."
    a //= b
    return a


def ilshift(a, b):
    "Same as a <<= b."
    a <<= b
    return a


def imod(a, b):
    "Same as a %= b."
    a %= b
    return a


def imul(a, b):
    "Same as a *= b."
    a *= b
    return a


def imatmul(a, b):
    "Same as a @= b."
    a @= b
    return a


def ior(a, b):
    "Same as a |= b."
    a |= b
    return a


def ipow(a, b):
    "Same as a **= b."
    a **= b
    return a


def irshift(a, b):
    "Same as a >>= b."
    a >>= b
    return a


def isub(a, b):
    "Same as a -= b."
    a -= b
    return a


def itruediv(a, b):
    "Same as a /= b."
    a /= b
    return a


def ixor(a, b):
    "Same as a ^= b."
    a ^= b
    return a


# Dunder aliases, as CPython provides them.
__lt__ = lt
__le__ = le
__eq__ = eq
__ne__ = ne
__ge__ = ge
__gt__ = gt
__not__ = not_
__abs__ = abs
__add__ = add
__and__ = and_
__call__ = call
__floordiv__ = floordiv
__index__ = index
__inv__ = inv
__invert__ = invert
__lshift__ = lshift
__mod__ = mod
__mul__ = mul
__matmul__ = matmul
__neg__ = neg
__or__ = or_
__pos__ = pos
__pow__ = pow
__rshift__ = rshift
__sub__ = sub
__truediv__ = truediv
__xor__ = xor
__concat__ = concat
__contains__ = contains
__delitem__ = delitem
__getitem__ = getitem
__setitem__ = setitem
__iadd__ = iadd
__iand__ = iand
__iconcat__ = iconcat
__ifloordiv__ = ifloordiv
__ilshift__ = ilshift
__imod__ = imod
__imul__ = imul
__imatmul__ = imatmul
__ior__ = ior
__ipow__ = ipow
__irshift__ = irshift
__isub__ = isub
__itruediv__ = itruediv
__ixor__ = ixor
