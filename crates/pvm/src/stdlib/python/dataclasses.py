"""dataclasses for the PVM: generated special methods for classes with annotated fields.

Covers: @dataclass / @dataclass(...) with init, repr, eq, order, unsafe_hash, frozen,
match_args, kw_only, slots; field(default, default_factory, init, repr, hash, compare,
metadata, kw_only); Field, MISSING, KW_ONLY, InitVar, FrozenInstanceError; fields, asdict,
astuple (recursive, with dict_factory / tuple_factory), replace, is_dataclass,
make_dataclass; __post_init__ (with InitVar values); inheritance of fields; ClassVar
exclusion; CPython's hash-method decision table and its error messages ("non-default
argument 'y' follows default argument", "mutable default <class 'list'> for field x is not
allowed: use default_factory", "cannot assign to field 'a'", ...).

Built without a general exec: `__init__`, `__eq__`, `__hash__` and the orderings are
compiled from the source CPython's dataclasses writes for them (`def __init__(self,a,b=
_dflt_b):` / `self.a=a`, `return (self.a,self.b,)==(other.a,other.b,)`), which the native
`_dataclasses` (`init`, `method`; src/native/dataclasses.rs) builds from the field names alone
(plain identifiers only) and compiles through the metered loader, so these methods run as
CPython's do and raise its errors ("P.__init__() missing 1 required positional argument:
'x'"). Where a name cannot be written into source, the general versions below are used:
`__init__` a closure binding *args/**kwargs against the field list with CPython's messages,
and `__eq__`/ordering/`__hash__` closures over the field tuple whose loops run in `attrs` and
`assign`. `__repr__`, `__setattr__`/`__delattr__` of frozen classes are always closures.

Does not: produce CPython's exact __doc__ signature text for every annotation (builtin and
class names only), call __set_name__ on field defaults, support descriptor-typed fields, or
evaluate string annotations (a string annotation "ClassVar[...]" / "InitVar[...]" is
recognised by its text). Imports copy (asdict/astuple copy leaf values with deepcopy).
Written for the PVM from the documented behaviour.
"""

import copy
from _dataclasses import assign as _assign, attrs as _attrs, init as _init, method as _method

__all__ = ['dataclass', 'field', 'Field', 'FrozenInstanceError', 'InitVar', 'KW_ONLY',
           'MISSING', 'fields', 'asdict', 'astuple', 'make_dataclass', 'replace',
           'is_dataclass']


class FrozenInstanceError(AttributeError):
    """Raised when assigning to or deleting a field of a frozen dataclass instance."""


class _MISSING_TYPE:
    """Sentinel for 'no default' (distinct from None)."""

    def __repr__(self):
        return '<dataclasses._MISSING_TYPE object>'


MISSING = _MISSING_TYPE()


class _KW_ONLY_TYPE:
    """The type of KW_ONLY."""


KW_ONLY = _KW_ONLY_TYPE


class _HAS_DEFAULT_FACTORY_CLASS:
    def __repr__(self):
        return '<factory>'


_HAS_DEFAULT_FACTORY = _HAS_DEFAULT_FACTORY_CLASS()


class _FIELD_BASE:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


_FIELD = _FIELD_BASE('_FIELD')
_FIELD_CLASSVAR = _FIELD_BASE('_FIELD_CLASSVAR')
_FIELD_INITVAR = _FIELD_BASE('_FIELD_INITVAR')


class InitVar:
    """Marks an init-only pseudo-field: InitVar[int]."""

    __slots__ = ('type',)

    def __init__(self, type):
        self.type = type

    def __repr__(self):
        if isinstance(self.type, type):
            type_name = self.type.__name__
        else:
            type_name = repr(self.type)
        return f'dataclasses.InitVar[{type_name}]'

    def __class_getitem__(cls, type):
        return InitVar(type)


class Field:
    """Describes one field of a dataclass (returned by fields())."""

    __slots__ = ('name', 'type', 'default', 'default_factory', 'repr', 'hash', 'init',
                 'compare', 'metadata', 'kw_only', '_field_type')

    def __init__(self, default, default_factory, init, repr, hash, compare, metadata,
                 kw_only):
        self.name = None
        self.type = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.metadata = {} if metadata is None else dict(metadata)
        self.kw_only = kw_only
        self._field_type = None

    def __repr__(self):
        return ('Field('
                f'name={self.name!r},'
                f'type={self.type!r},'
                f'default={self.default!r},'
                f'default_factory={self.default_factory!r},'
                f'init={self.init!r},'
                f'repr={self.repr!r},'
                f'hash={self.hash!r},'
                f'compare={self.compare!r},'
                f'metadata={self.metadata!r},'
                f'kw_only={self.kw_only!r},'
                f'_field_type={self._field_type}'
                ')')


def field(*, default=MISSING, default_factory=MISSING, init=True, repr=True, hash=None,
          compare=True, metadata=None, kw_only=MISSING):
    """Customise one field: field(default_factory=list, repr=False, ...)."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError('cannot specify both default and default_factory')
    return Field(default, default_factory, init, repr, hash, compare, metadata, kw_only)


class _DataclassParams:
    __slots__ = ('init', 'repr', 'eq', 'order', 'unsafe_hash', 'frozen')

    def __init__(self, init, repr, eq, order, unsafe_hash, frozen):
        self.init = init
        self.repr = repr
        self.eq = eq
        self.order = order
        self.unsafe_hash = unsafe_hash
        self.frozen = frozen

    def __repr__(self):
        return ('_DataclassParams('
                f'init={self.init!r},repr={self.repr!r},eq={self.eq!r},'
                f'order={self.order!r},unsafe_hash={self.unsafe_hash!r},'
                f'frozen={self.frozen!r})')


def _annotation_text(a_type):
    return a_type if isinstance(a_type, str) else repr(a_type)


def _is_classvar(a_type):
    text = _annotation_text(a_type)
    return (text == 'typing.ClassVar' or text.startswith('typing.ClassVar[')
            or text == 'ClassVar' or text.startswith('ClassVar['))


def _is_initvar(a_type):
    if a_type is InitVar or isinstance(a_type, InitVar):
        return True
    if isinstance(a_type, str):
        return a_type.startswith(('InitVar', 'dataclasses.InitVar'))
    return False


def _is_kw_only(a_type):
    if a_type is KW_ONLY:
        return True
    return isinstance(a_type, str) and a_type in ('KW_ONLY', 'dataclasses.KW_ONLY')


def _get_field(cls, a_name, a_type, default_kw_only):
    default = getattr(cls, a_name, MISSING)
    if isinstance(default, Field):
        f = default
    else:
        f = field(default=default)
    f.name = a_name
    f.type = a_type
    f._field_type = _FIELD
    if _is_classvar(a_type):
        f._field_type = _FIELD_CLASSVAR
    elif _is_initvar(a_type):
        f._field_type = _FIELD_INITVAR
    if f._field_type in (_FIELD_CLASSVAR, _FIELD_INITVAR):
        if f.default_factory is not MISSING:
            raise TypeError(f'field {f.name} cannot have a default factory')
    if f._field_type in (_FIELD, _FIELD_INITVAR):
        if f.kw_only is MISSING:
            f.kw_only = default_kw_only
    else:
        if f.kw_only is not MISSING:
            raise TypeError(f'field {f.name} is a ClassVar but specifies kw_only')
    if f._field_type is _FIELD and f.default is not MISSING \
            and type(f.default).__hash__ is None:
        raise ValueError(f'mutable default {type(f.default)} for field {f.name} is not '
                         'allowed: use default_factory')
    return f


def _quoted_list(names):
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        return quoted[0]
    if len(quoted) == 2:
        return f"{quoted[0]} and {quoted[1]}"
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


_UNSET = object()


def _bind(qualname, pos, kwonly, defaults, args, kwargs):
    """Bind arguments like CPython's frame setup for
    def f(self, <pos...>, *, <kwonly...>), raising its exact TypeError messages.
    Returns {name: value}; defaults maps a parameter name to its default."""
    npos = len(pos)
    bound = {}
    for name, value in zip(pos, args):
        bound[name] = value
    kwonly_given = 0
    for key, value in kwargs.items():
        if key in pos:
            if key in bound:
                raise TypeError(f"{qualname}() got multiple values for argument '{key}'")
        elif key in kwonly:
            kwonly_given += 1
        else:
            raise TypeError(f"{qualname}() got an unexpected keyword argument '{key}'")
        bound[key] = value
    if len(args) > npos:
        ndef = sum(1 for n in pos if n in defaults)
        if ndef:
            takes = f"from {npos - ndef + 1} to {npos + 1} positional arguments"
        else:
            takes = f"{npos + 1} positional argument" + ("" if npos == 0 else "s")
        given = len(args) + 1
        if kwonly_given:
            extra = (f" positional argument{'' if given == 1 else 's'} (and {kwonly_given} "
                     f"keyword-only argument{'' if kwonly_given == 1 else 's'})")
        else:
            extra = ""
        raise TypeError(f"{qualname}() takes {takes} but {given}{extra} "
                        f"{'was' if given == 1 and not kwonly_given else 'were'} given")
    missing = [n for n in pos if n not in bound and n not in defaults]
    if missing:
        s = "" if len(missing) == 1 else "s"
        raise TypeError(f"{qualname}() missing {len(missing)} required positional "
                        f"argument{s}: {_quoted_list(missing)}")
    missing = [n for n in kwonly if n not in bound and n not in defaults]
    if missing:
        s = "" if len(missing) == 1 else "s"
        raise TypeError(f"{qualname}() missing {len(missing)} required keyword-only "
                        f"argument{s}: {_quoted_list(missing)}")
    for name in pos + kwonly:
        if name not in bound:
            bound[name] = defaults[name]
    return bound


def _in_order(names, args, kwargs):
    """The arguments of parameters `names` in order when args and kwargs give each exactly
    once, else None (the caller then binds them in full, with its errors)."""
    if len(args) + len(kwargs) != len(names):
        return None
    values = list(args)
    for name in names[len(args):]:
        if name not in kwargs:
            return None
        values.append(kwargs[name])
    return values


def _compiled_init(all_fields, frozen, has_post_init, qualname):
    """The `__init__` CPython's dataclasses would exec, compiled by `_dataclasses.init` from
    the fields' names and kinds (None when a name cannot be written into source)."""
    params, kwonly, body = [], [], []
    namespace = {'_HAS_DEFAULT_FACTORY': _HAS_DEFAULT_FACTORY,
                 '__dataclass_builtins_object__': object}
    for f in all_fields:
        if f._field_type is _FIELD_CLASSVAR:
            continue
        if f.default_factory is not MISSING:
            namespace['_dflt_' + f.name] = f.default_factory
        elif f.default is not MISSING:
            namespace['_dflt_' + f.name] = f.default
        if f.init:
            default = 2 if f.default_factory is not MISSING else (
                1 if f.default is not MISSING else 0)
            (kwonly if f.kw_only else params).append((f.name, default))
        if f._field_type is _FIELD:
            if f.init:
                body.append((f.name, 1 if f.default_factory is not MISSING else 0))
            elif f.default_factory is not MISSING:
                body.append((f.name, 2))
    post = None
    if has_post_init:
        post = tuple(f.name for f in all_fields if f._field_type is _FIELD_INITVAR)
    return _init(qualname, tuple(params), tuple(kwonly), tuple(body), frozen, post, namespace)


def _make_init(cls, all_fields, frozen, has_post_init):
    qualname = f"{cls.__qualname__}.__init__"
    init_fields = [f for f in all_fields if f.init and f._field_type in (_FIELD, _FIELD_INITVAR)]
    pos = [f.name for f in init_fields if not f.kw_only]
    kwonly = [f.name for f in init_fields if f.kw_only]
    seen_default = False
    for f in init_fields:
        if f.kw_only:
            continue
        if f.default is not MISSING or f.default_factory is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f'non-default argument {f.name!r} follows default argument')
    compiled = _compiled_init(all_fields, frozen, has_post_init, qualname)
    if compiled is not None:
        return compiled
    defaults = {}
    for f in init_fields:
        if f.default_factory is not MISSING:
            defaults[f.name] = _HAS_DEFAULT_FACTORY
        elif f.default is not MISSING:
            defaults[f.name] = f.default
    assign_fields = [f for f in all_fields if f._field_type is _FIELD]
    initvar_names = [f.name for f in all_fields if f._field_type is _FIELD_INITVAR]
    # The parameters are exactly the fields, in order: a call giving each once (positionally
    # or by name) just stores its arguments.
    direct = tuple(pos) if [f.name for f in assign_fields] == pos and not kwonly else None
    # Arguments a positional call must give to store them directly (-1: never).
    ndirect = len(direct) if direct is not None else -1

    def __init__(self, *args, **kwargs):
        # The commonest call first, in as few instructions as it can be tested: every field
        # given positionally (a generated `__init__` is most of a dataclass program's time).
        if not kwargs and len(args) == ndirect:
            _assign(self, direct, args, frozen)
            if has_post_init:
                self.__post_init__()
            return
        if kwargs and direct is not None:
            values = _in_order(direct, args, kwargs)
            if values is not None:
                _assign(self, direct, values, frozen)
                if has_post_init:
                    self.__post_init__()
                return
        if not kwargs and len(args) == len(pos) and not kwonly:
            bound = dict(zip(pos, args))
        else:
            bound = _bind(qualname, pos, kwonly, defaults, args, kwargs)
        for f in assign_fields:
            if f.init:
                value = bound[f.name]
                if value is _HAS_DEFAULT_FACTORY:
                    value = f.default_factory()
            elif f.default_factory is not MISSING:
                value = f.default_factory()
            else:
                continue  # init=False: the class attribute (if any) supplies the value
            if frozen:
                object.__setattr__(self, f.name, value)
            else:
                setattr(self, f.name, value)
        if has_post_init:
            self.__post_init__(*[bound[n] for n in initvar_names])

    __init__.__qualname__ = qualname
    return __init__


def _make_repr(cls, repr_fields):
    active = []  # objects whose repr is in progress (recursion guard, compared with `is`)

    def __repr__(self):
        for obj in active:
            if obj is self:
                return '...'
        active.append(self)
        try:
            inner = ', '.join(f"{f.name}={getattr(self, f.name)!r}" for f in repr_fields)
        finally:
            active.pop()
        return f"{self.__class__.__qualname__}({inner})"

    __repr__.__qualname__ = f"{cls.__qualname__}.__repr__"
    return __repr__


def _make_eq(cls, names):
    compiled = _method('__eq__', names, f"{cls.__qualname__}.__eq__")
    if compiled is not None:
        return compiled

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return _attrs(self, names) == _attrs(other, names)
        return NotImplemented
    __eq__.__qualname__ = f"{cls.__qualname__}.__eq__"
    return __eq__


def _make_order(cls, names, opname):
    compiled = _method(opname, names, f"{cls.__qualname__}.{opname}")
    if compiled is not None:
        return compiled

    def compare(self, other):
        if other.__class__ is self.__class__:
            a, b = _attrs(self, names), _attrs(other, names)
            if opname == '__lt__':
                return a < b
            if opname == '__le__':
                return a <= b
            if opname == '__gt__':
                return a > b
            return a >= b
        return NotImplemented
    compare.__name__ = opname
    compare.__qualname__ = f"{cls.__qualname__}.{opname}"
    return compare


def _make_hash(cls, names):
    compiled = _method('__hash__', names, f"{cls.__qualname__}.__hash__")
    if compiled is not None:
        return compiled

    def __hash__(self):
        return hash(_attrs(self, names))
    __hash__.__qualname__ = f"{cls.__qualname__}.__hash__"
    return __hash__


def _make_frozen(cls, field_names):
    def __setattr__(self, name, value):
        if type(self) is cls or name in field_names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in field_names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __setattr__, __delattr__


def _set_new_attribute(cls, name, value):
    if name in cls.__dict__:
        return True
    setattr(cls, name, value)
    return False


def _type_name(tp):
    if isinstance(tp, type):
        return tp.__qualname__ if tp.__module__ == 'builtins' else \
            f'{tp.__module__}.{tp.__qualname__}'
    text = repr(tp)
    return text[len('typing.'):] if text.startswith('typing.') else text


def _process_class(cls, init, repr, eq, order, unsafe_hash, frozen, match_args, kw_only,
                   slots):
    fields = {}
    has_dataclass_bases = False
    any_frozen_base = False
    all_frozen_bases = None
    for b in cls.__mro__[-1:0:-1]:
        base_fields = b.__dict__.get('__dataclass_fields__')
        if base_fields is not None:
            has_dataclass_bases = True
            for f in base_fields.values():
                fields[f.name] = f
            base_frozen = b.__dict__['__dataclass_params__'].frozen
            if all_frozen_bases is None:
                all_frozen_bases = True
            if base_frozen:
                any_frozen_base = True
            else:
                all_frozen_bases = False

    cls_annotations = cls.__dict__.get('__annotations__', {})
    cls_fields = []
    kw_only_now = kw_only
    kw_only_seen = False
    for name, a_type in cls_annotations.items():
        if _is_kw_only(a_type):
            if kw_only_seen:
                raise TypeError(f'{name!r} is KW_ONLY, but KW_ONLY has already been specified')
            kw_only_seen = True
            kw_only_now = True
            continue
        cls_fields.append(_get_field(cls, name, a_type, kw_only_now))
    for f in cls_fields:
        fields[f.name] = f
        if isinstance(cls.__dict__.get(f.name), Field):
            if f.default is MISSING:
                delattr(cls, f.name)
            else:
                setattr(cls, f.name, f.default)
    for name, value in cls.__dict__.items():
        if isinstance(value, Field) and name not in cls_annotations:
            raise TypeError(f'{name!r} is a field but has no type annotation')

    if has_dataclass_bases:
        if any_frozen_base and not frozen:
            raise TypeError('cannot inherit non-frozen dataclass from a frozen one')
        if all_frozen_bases is False and frozen:
            raise TypeError('cannot inherit frozen dataclass from a non-frozen one')

    cls.__dataclass_fields__ = fields
    cls.__dataclass_params__ = _DataclassParams(init, repr, eq, order, unsafe_hash, frozen)

    class_hash = cls.__dict__.get('__hash__', MISSING)
    has_explicit_hash = not (class_hash is MISSING
                             or (class_hash is None and '__eq__' in cls.__dict__))

    all_fields = list(fields.values())
    std_fields = [f for f in all_fields if f._field_type is _FIELD]
    if init:
        has_post_init = hasattr(cls, '__post_init__')
        _set_new_attribute(cls, '__init__', _make_init(cls, all_fields, frozen, has_post_init))
    if repr:
        _set_new_attribute(cls, '__repr__', _make_repr(cls, [f for f in std_fields if f.repr]))
    compare_names = tuple(f.name for f in std_fields if f.compare)
    if eq:
        _set_new_attribute(cls, '__eq__', _make_eq(cls, compare_names))
    if order:
        if not eq:
            raise ValueError('eq must be true if order is true')
        for opname in ('__lt__', '__le__', '__gt__', '__ge__'):
            if _set_new_attribute(cls, opname, _make_order(cls, compare_names, opname)):
                raise TypeError(f'Cannot overwrite attribute {opname} in class '
                                f'{cls.__name__}. Consider using functools.total_ordering')
    if frozen:
        setter, deleter = _make_frozen(cls, tuple(f.name for f in std_fields))
        for name, fn in (('__setattr__', setter), ('__delattr__', deleter)):
            if _set_new_attribute(cls, name, fn):
                raise TypeError(f'Cannot overwrite attribute {name} in class {cls.__name__}')

    hash_names = tuple(f.name for f in std_fields
                       if (f.compare if f.hash is None else f.hash))
    if unsafe_hash:
        if has_explicit_hash:
            raise TypeError(f'Cannot overwrite attribute __hash__ in class {cls.__name__}')
        cls.__hash__ = _make_hash(cls, hash_names)
    elif eq and frozen:
        if not has_explicit_hash:
            cls.__hash__ = _make_hash(cls, hash_names)
    elif eq:
        if not has_explicit_hash:
            cls.__hash__ = None

    if not getattr(cls, '__doc__'):
        params = []
        for f in all_fields:
            if f.init and f._field_type is not _FIELD_CLASSVAR:
                text = f'{f.name}: {_type_name(f.type)}'
                if f.default_factory is not MISSING:
                    text += ' = <factory>'
                elif f.default is not MISSING:
                    text += f' = {f.default!r}'
                params.append(text)
        cls.__doc__ = f"{cls.__name__}({', '.join(params)})"

    if match_args:
        _set_new_attribute(cls, '__match_args__',
                           tuple(f.name for f in std_fields if f.init and not f.kw_only))
    if slots:
        cls = _add_slots(cls, frozen)
    return cls


def _add_slots(cls, is_frozen):
    cls_dict = dict(cls.__dict__)
    field_names = tuple(f.name for f in fields(cls))
    if '__slots__' in cls_dict:
        raise TypeError(f'{cls.__name__} already specifies __slots__')
    cls_dict['__slots__'] = field_names
    for name in field_names:
        cls_dict.pop(name, None)
    cls_dict.pop('__dict__', None)
    cls_dict.pop('__weakref__', None)
    qualname = getattr(cls, '__qualname__', None)
    new_cls = type(cls)(cls.__name__, cls.__bases__, cls_dict)
    if qualname is not None:
        new_cls.__qualname__ = qualname
    return new_cls


def dataclass(cls=None, /, *, init=True, repr=True, eq=True, order=False, unsafe_hash=False,
              frozen=False, match_args=True, kw_only=False, slots=False,
              weakref_slot=False):
    """Add generated special methods to a class with annotated fields."""
    def wrap(cls):
        return _process_class(cls, init, repr, eq, order, unsafe_hash, frozen, match_args,
                              kw_only, slots)
    if cls is None:
        return wrap
    return wrap(cls)


def fields(class_or_instance):
    """The Field objects of a dataclass or instance (ClassVar and InitVar excluded)."""
    try:
        fields = getattr(class_or_instance, '__dataclass_fields__')
    except AttributeError:
        raise TypeError('must be called with a dataclass type or instance') from None
    return tuple(f for f in fields.values() if f._field_type is _FIELD)


def _is_dataclass_instance(obj):
    return hasattr(type(obj), '__dataclass_fields__')


def is_dataclass(obj):
    """True for a dataclass or an instance of one."""
    cls = obj if isinstance(obj, type) else type(obj)
    return hasattr(cls, '__dataclass_fields__')


def asdict(obj, *, dict_factory=dict):
    """Recursively convert a dataclass instance to a dict of its fields."""
    if not _is_dataclass_instance(obj):
        raise TypeError("asdict() should be called on dataclass instances")
    return _asdict_inner(obj, dict_factory)


def _asdict_inner(obj, dict_factory):
    if _is_dataclass_instance(obj):
        return dict_factory([(f.name, _asdict_inner(getattr(obj, f.name), dict_factory))
                             for f in fields(obj)])
    if isinstance(obj, tuple) and hasattr(obj, '_fields'):
        return type(obj)(*[_asdict_inner(v, dict_factory) for v in obj])
    if isinstance(obj, (list, tuple)):
        return type(obj)(_asdict_inner(v, dict_factory) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((_asdict_inner(k, dict_factory), _asdict_inner(v, dict_factory))
                         for k, v in obj.items())
    return copy.deepcopy(obj)


def astuple(obj, *, tuple_factory=tuple):
    """Recursively convert a dataclass instance to a tuple of its field values."""
    if not _is_dataclass_instance(obj):
        raise TypeError("astuple() should be called on dataclass instances")
    return _astuple_inner(obj, tuple_factory)


def _astuple_inner(obj, tuple_factory):
    if _is_dataclass_instance(obj):
        return tuple_factory([_astuple_inner(getattr(obj, f.name), tuple_factory)
                              for f in fields(obj)])
    if isinstance(obj, tuple) and hasattr(obj, '_fields'):
        return type(obj)(*[_astuple_inner(v, tuple_factory) for v in obj])
    if isinstance(obj, (list, tuple)):
        return type(obj)(_astuple_inner(v, tuple_factory) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((_astuple_inner(k, tuple_factory), _astuple_inner(v, tuple_factory))
                         for k, v in obj.items())
    return copy.deepcopy(obj)


def replace(obj, /, **changes):
    """A new instance of obj's class with some fields replaced."""
    if not _is_dataclass_instance(obj):
        raise TypeError("replace() should be called on dataclass instances")
    for f in getattr(obj, '__dataclass_fields__').values():
        if f._field_type is _FIELD_CLASSVAR:
            continue
        if not f.init:
            if f.name in changes:
                raise ValueError(f'field {f.name} is declared with init=False, it cannot be '
                                 'specified with replace()')
            continue
        if f.name not in changes:
            if f._field_type is _FIELD_INITVAR and f.default is MISSING:
                raise ValueError(f"InitVar {f.name!r} must be specified with replace()")
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


def make_dataclass(cls_name, fields, *, bases=(), namespace=None, init=True, repr=True,
                   eq=True, order=False, unsafe_hash=False, frozen=False, match_args=True,
                   kw_only=False, slots=False, weakref_slot=False, module=None):
    """Create a dataclass from a list of names, (name, type) or (name, type, Field)."""
    namespace = {} if namespace is None else dict(namespace)
    seen = set()
    annotations = {}
    for item in fields:
        if isinstance(item, str):
            name, tp = item, 'typing.Any'
        elif len(item) == 2:
            name, tp = item
        elif len(item) == 3:
            name, tp, spec = item
            namespace[name] = spec
        else:
            raise TypeError(f'Invalid field: {item!r}')
        if not isinstance(name, str) or not name.isidentifier():
            raise TypeError(f'Field names must be valid identifiers: {name!r}')
        if name in seen:
            raise TypeError(f'Field name duplicated: {name!r}')
        seen.add(name)
        annotations[name] = tp
    namespace['__annotations__'] = annotations
    namespace.setdefault('__module__', module if module is not None else 'types')
    cls = type(cls_name, tuple(bases), namespace)
    return dataclass(cls, init=init, repr=repr, eq=eq, order=order, unsafe_hash=unsafe_hash,
                     frozen=frozen, match_args=match_args, kw_only=kw_only, slots=slots)
