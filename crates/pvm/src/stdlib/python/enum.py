"""enum for the PVM: enumerations.

Covers: Enum, IntEnum, StrEnum, Flag, IntFlag, ReprEnum, auto, unique, EnumType (alias
EnumMeta), member/nonmember; members with .name/.value (and _name_/_value_), aliases,
lookup by value Color(1) and by name Color['RED'], iteration (definition order, aliases
skipped), len, `in`, reversed, __members__, _missing_, _generate_next_value_, custom
__init__ / __new__ in the enum body, mixin data types (int, str, float, tuple, ...), the
functional API Enum('Name', 'A B C' | [names] | [(name, value)] | {name: value}),
CPython 3.11's repr/str/format for each family ('<Color.RED: 1>' / 'Color.RED'; IntEnum and
StrEnum str() as the plain value), Flag composition (| & ^ ~, iteration over contained
flags, pseudo-members cached per value, STRICT for Flag and KEEP for IntFlag), reassignment
and deletion of members refused with CPython's AttributeError messages.

Needs from the VM: metaclass hooks __new__(metacls, name, bases, namespace, **kw) (namespace
read in definition order), __call__, __getitem__, __iter__, __reversed__, __len__,
__contains__, __repr__, __setattr__, __delattr__ and a __members__ property on the
metaclass.

Does not: use __prepare__, so a name defined twice in the class body is not reported (the
last definition wins) and `_ignore_` is honoured only by deleting the listed names; name a
member 'name' or 'value'; provide pickling, _simple_enum, global_enum, verify/EnumCheck, or
FlagBoundary CONFORM/EJECT (Flag is STRICT, IntFlag is KEEP, as their 3.11 defaults).
Written for the PVM from the documented behaviour; builtins only.
"""

__all__ = ['EnumType', 'EnumMeta', 'Enum', 'IntEnum', 'StrEnum', 'Flag', 'IntFlag',
           'ReprEnum', 'auto', 'unique', 'member', 'nonmember']

_auto_null = object()


class auto:
    """Instances are replaced with an appropriate value in Enum class suites."""

    def __init__(self, value=_auto_null):
        self.value = value

    def __repr__(self):
        return f"auto({self.value!r})"


class member:
    """Force an attribute of an enum body to become a member."""

    def __init__(self, value):
        self.value = value


class nonmember:
    """Keep an attribute of an enum body from becoming a member."""

    def __init__(self, value):
        self.value = value


def _is_descriptor(obj):
    t = type(obj)
    return hasattr(t, '__get__') or hasattr(t, '__set__') or hasattr(t, '__delete__')


def _is_dunder(name):
    return len(name) > 4 and name[:2] == name[-2:] == '__' and name[2] != '_' \
        and name[-3] != '_'


def _is_sunder(name):
    return len(name) > 2 and name[0] == name[-1] == '_' and name[1] != '_' \
        and name[-2] != '_'


def _is_private(cls_name, name):
    prefix = f'_{cls_name}__'
    return name.startswith(prefix) and not name.endswith('__')


def _is_single_bit(num):
    return num != 0 and num & (num - 1) == 0


_EnumDefined = [False]  # becomes True once Enum itself exists


class EnumType(type):
    """Metaclass for Enum."""

    def __new__(metacls, cls, bases, classdict, *, boundary=None, **kwds):
        classdict = dict(classdict)
        if not _EnumDefined[0]:
            # Creating Enum itself.
            enum_class = super().__new__(metacls, cls, bases, classdict, **kwds)
            enum_class._init_empty(object, None)
            return enum_class
        member_type, first_enum = metacls._get_mixins_(cls, bases)
        for name in classdict.pop('_ignore_', ()):
            classdict.pop(name, None)

        # Split the body into members and ordinary attributes, in definition order.
        members = []
        for key in list(classdict):
            value = classdict[key]
            if isinstance(value, nonmember):
                classdict[key] = value.value
                continue
            if isinstance(value, member):
                members.append((key, value.value))
                del classdict[key]
                continue
            if _is_dunder(key) or _is_sunder(key) or _is_private(cls, key) \
                    or _is_descriptor(value):
                continue
            members.append((key, value))
            del classdict[key]
        if first_enum._member_names_:
            raise TypeError(f"<enum {cls!r}> cannot extend {first_enum!r}")

        # A __new__ in the body creates members; lookups by value never call it.
        new_member = classdict.pop('__new__', None)
        if new_member is not None and isinstance(new_member, staticmethod):
            new_member = new_member.__func__
        if new_member is None:
            new_member = getattr(first_enum, '_new_member_', None)
        generate = classdict.get('_generate_next_value_')
        if generate is None:
            generate = first_enum._generate_next_value_
        elif isinstance(generate, staticmethod):
            generate = generate.__func__

        enum_class = super().__new__(metacls, cls, bases, classdict, **kwds)
        enum_class._init_empty(member_type, new_member)
        # With a data-type mixin (int, str, ...) its __repr__/__str__/__format__ would come
        # first in the MRO; use the enum's own unless the body defines them (as CPython).
        for name in ('__repr__', '__str__', '__format__'):
            if name not in classdict:
                owner = object
                for klass in enum_class.__mro__:
                    if name in klass.__dict__:
                        owner = klass
                        break
                if not isinstance(owner, EnumType):
                    type.__setattr__(enum_class, name, getattr(first_enum, name))
        if boundary is not None:
            type.__setattr__(enum_class, '_boundary_', boundary)

        last_values = []
        for name, value in members:
            if isinstance(value, auto):
                if value.value is _auto_null:
                    value.value = generate(name, 1, len(last_values), last_values[:])
                value = value.value
            elif isinstance(value, tuple) and any(isinstance(v, auto) for v in value):
                value = tuple(
                    generate(name, 1, len(last_values), last_values[:])
                    if isinstance(v, auto) and v.value is _auto_null
                    else (v.value if isinstance(v, auto) else v) for v in value)
            enum_class._add_member_(name, value)
            last_values.append(value)
        if issubclass(enum_class, Flag) if _FlagDefined[0] else False:
            enum_class._finish_flag_()
        return enum_class

    @staticmethod
    def _get_mixins_(cls_name, bases):
        if not bases:
            return object, Enum
        first_enum = None
        for base in bases:
            if isinstance(base, EnumType):
                first_enum = base
        if first_enum is None or not issubclass(bases[-1], Enum) if _EnumDefined[0] else False:
            raise TypeError("new enumerations should be created as "
                            "`EnumName([mixin_type, ...] [data_type,] enum_type)`")
        member_type = object
        for base in bases:
            for klass in base.__mro__:
                if klass is object:
                    continue
                if isinstance(klass, EnumType):
                    if klass._member_type_ is not object:
                        member_type = klass._member_type_
                        break
                    continue
                if '__new__' in klass.__dict__ or klass in (int, str, float, tuple,
                                                          bytes, complex, frozenset):
                    member_type = klass
                    break
            if member_type is not object:
                break
        return member_type, first_enum

    def _init_empty(cls, member_type, new_member):
        setattr_ = type.__setattr__
        setattr_(cls, '_member_names_', [])
        setattr_(cls, '_member_map_', {})
        setattr_(cls, '_value2member_map_', {})
        setattr_(cls, '_unhashable_values_', [])
        setattr_(cls, '_member_type_', member_type)
        setattr_(cls, '_new_member_', new_member)

    def _add_member_(cls, name, value):
        """Create one member (or alias) from a body entry."""
        member_type = cls._member_type_
        args = value if isinstance(value, tuple) else (value,)
        if member_type is tuple:
            args = (args,)
        if cls._new_member_ is not None:
            obj = cls._new_member_(cls, *args)
        elif member_type is object:
            obj = object.__new__(cls)
        else:
            obj = member_type.__new__(cls, *args)
        if not hasattr(obj, '_value_'):
            obj._value_ = value if member_type is object else member_type(*args)
        value = obj._value_
        # An earlier member with an equal value makes this name an alias.
        existing = cls._lookup_value_(value)
        if existing is not None:
            cls._member_map_[name] = existing
            type.__setattr__(cls, name, existing)
            return
        obj._name_ = name
        obj.__objclass__ = cls
        obj._sort_order_ = len(cls._member_names_)
        obj.__init__(*args)
        cls._member_names_.append(name)
        cls._member_map_[name] = obj
        try:
            cls._value2member_map_[value] = obj
        except TypeError:
            cls._unhashable_values_.append(obj)
        type.__setattr__(cls, name, obj)

    def _lookup_value_(cls, value):
        try:
            return cls._value2member_map_.get(value)
        except TypeError:
            for obj in cls._unhashable_values_:
                if obj._value_ == value:
                    return obj
            return None

    def __call__(cls, value, names=None, *, module=None, qualname=None, type=None,
                 start=1, boundary=None):
        if names is None:
            return cls._get_member_(value)
        return cls._create_(value, names, module=module, qualname=qualname, type=type,
                            start=start, boundary=boundary)

    def _get_member_(cls, value):
        if isinstance(value, cls):
            return value
        found = cls._lookup_value_(value)
        if found is not None:
            return found
        result = cls._missing_(value)
        if isinstance(result, cls):
            return result
        if result is None:
            raise ValueError(f"{value!r} is not a valid {cls.__qualname__}")
        raise TypeError(f"error in {cls.__name__}._missing_: returned {result!r} instead of "
                        f"None or a valid member")

    def _create_(cls, class_name, names, *, module=None, qualname=None, type=None,
                 start=1, boundary=None):
        bases = (cls,) if type is None else (type, cls)
        classdict = {'__module__': module if module is not None else 'enum'}
        if qualname is not None:
            classdict['__qualname__'] = qualname
        if isinstance(names, str):
            names = names.replace(',', ' ').split()
        if isinstance(names, (tuple, list)) and names and isinstance(names[0], str):
            original, names, last = names, [], []
            for count, name in enumerate(original):
                value = cls._generate_next_value_(name, start, count, last[:])
                last.append(value)
                names.append((name, value))
        items = names.items() if isinstance(names, dict) else names
        for item in items:
            if isinstance(item, str):
                name, value = item, names[item]
            else:
                name, value = item
            classdict[name] = value
        metacls = cls.__class__
        if boundary is not None:
            return metacls(class_name, bases, classdict, boundary=boundary)
        return metacls(class_name, bases, classdict)

    def __getitem__(cls, name):
        return cls._member_map_[name]

    def __iter__(cls):
        return (cls._member_map_[name] for name in cls._member_names_)

    def __reversed__(cls):
        return (cls._member_map_[name] for name in reversed(cls._member_names_))

    def __len__(cls):
        return len(cls._member_names_)

    def __bool__(cls):
        return True

    def __contains__(cls, obj):
        if not isinstance(obj, Enum):
            raise TypeError(
                "unsupported operand type(s) for 'in': '%s' and '%s'" % (
                    type(obj).__qualname__, cls.__class__.__qualname__))
        return isinstance(obj, cls) and obj._name_ in cls._member_map_

    @property
    def __members__(cls):
        """Mapping of member names to members, including aliases."""
        return dict(cls._member_map_)

    def __repr__(cls):
        if _FlagDefined[0] and issubclass(cls, Flag):
            return f"<flag {cls.__name__!r}>"
        return f"<enum {cls.__name__!r}>"

    def __setattr__(cls, name, value):
        member_map = cls.__dict__.get('_member_map_', {})
        if name in member_map:
            raise AttributeError(f'cannot reassign member {name!r}')
        super().__setattr__(name, value)

    def __delattr__(cls, attr):
        if attr in cls._member_map_:
            raise AttributeError(f"{cls.__name__!r} cannot delete member {attr!r}.")
        super().__delattr__(attr)


EnumMeta = EnumType
_FlagDefined = [False]


class Enum(metaclass=EnumType):
    """Create a collection of name/value pairs: class Color(Enum): RED = 1."""

    @staticmethod
    def _generate_next_value_(name, start, count, last_values):
        if not last_values:
            return start
        try:
            return max(last_values) + 1
        except TypeError:
            return last_values[-1] + 1

    @classmethod
    def _missing_(cls, value):
        return None

    def __init__(self, *args, **kwds):
        pass

    def __repr__(self):
        return f"<{self.__class__.__name__}.{self._name_}: {self._value_!r}>"

    def __str__(self):
        return f"{self.__class__.__name__}.{self._name_}"

    def __format__(self, format_spec):
        return str.__format__(str(self), format_spec)

    def __hash__(self):
        return hash(self._name_)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce_ex__(self, proto):
        return self.__class__, (self._value_,)

    @property
    def name(self):
        """The name of the Enum member."""
        return self._name_

    @property
    def value(self):
        """The value of the Enum member."""
        return self._value_


_EnumDefined[0] = True


class ReprEnum(Enum):
    """Only changes the repr(), leaving str() and format() to the mixed-in type."""

    def __str__(self):
        return self._member_type_.__str__(self._value_) if self._member_type_ is not object \
            else Enum.__str__(self)

    def __format__(self, format_spec):
        if self._member_type_ is object:
            return Enum.__format__(self, format_spec)
        return self._member_type_.__format__(self._value_, format_spec)


class IntEnum(int, ReprEnum):
    """Enum where members are also (and must be) ints."""


class StrEnum(str, ReprEnum):
    """Enum where members are also (and must be) strings."""

    def __new__(cls, *values):
        if len(values) > 3:
            raise TypeError(f'too many arguments for str(): {values!r}')
        if len(values) == 1 and not isinstance(values[0], str):
            raise TypeError(f'{values[0]!r} is not a string')
        value = str(*values)
        obj = str.__new__(cls, value)
        obj._value_ = value
        return obj

    @staticmethod
    def _generate_next_value_(name, start, count, last_values):
        return name.lower()


class Flag(Enum):
    """Support for bit flags: members combine with | & ^ ~."""

    _boundary_ = 'strict'

    @staticmethod
    def _generate_next_value_(name, start, count, last_values):
        if not count:
            return start if start is not None else 1
        high = max(last_values)
        return 2 ** high.bit_length() if high > 0 else 1

    @classmethod
    def _finish_flag_(cls):
        # Iteration lists only the canonical (single-bit) members, in definition order.
        mask = 0
        canonical = []
        for name in cls._member_names_:
            value = cls._member_map_[name]._value_
            mask |= value
            if _is_single_bit(value):
                canonical.append(name)
        type.__setattr__(cls, '_member_names_', canonical)
        type.__setattr__(cls, '_flag_mask_', mask)
        type.__setattr__(cls, '_all_bits_', 2 ** mask.bit_length() - 1)

    @classmethod
    def _missing_(cls, value):
        if not isinstance(value, int):
            raise ValueError(f"{value!r} is not a valid {cls.__qualname__}")
        flag_mask = cls._flag_mask_
        neg_value = None
        if value < 0:
            neg_value = value
            value = cls._all_bits_ + 1 + value
        if value < 0 or value & ~flag_mask:
            if cls._boundary_ == 'strict':
                width = max(flag_mask.bit_length(), value.bit_length())
                raise ValueError(
                    f"{cls!r} invalid value {neg_value if neg_value is not None else value!r}"
                    f"\n    given {_bin(value, width)}\n  allowed {_bin(flag_mask, width)}")
        if cls._member_type_ is object:
            pseudo = object.__new__(cls)
        else:
            pseudo = cls._member_type_.__new__(cls, value)
        pseudo._value_ = value
        names = [name for name in cls._member_names_
                 if cls._member_map_[name]._value_ & value == cls._member_map_[name]._value_]
        covered = 0
        for name in names:
            covered |= cls._member_map_[name]._value_
        if names:
            extra = value & ~covered
            pseudo._name_ = '|'.join(names) + (f'|{extra}' if extra else '')
        else:
            pseudo._name_ = None
        pseudo.__objclass__ = cls
        cls._value2member_map_[value] = pseudo
        if neg_value is not None:
            cls._value2member_map_[neg_value] = pseudo
        return pseudo

    def __repr__(self):
        cls_name = self.__class__.__name__
        if self._name_ is None:
            return f"<{cls_name}: {self._value_!r}>"
        return f"<{cls_name}.{self._name_}: {self._value_!r}>"

    def __str__(self):
        cls_name = self.__class__.__name__
        if self._name_ is None:
            return f"{cls_name}({self._value_!r})"
        return f"{cls_name}.{self._name_}"

    def __bool__(self):
        return bool(self._value_)

    def __contains__(self, other):
        if not isinstance(other, self.__class__):
            raise TypeError(
                "unsupported operand type(s) for 'in': %r and %r" % (
                    type(other).__qualname__, self.__class__.__qualname__))
        return other._value_ & self._value_ == other._value_

    def __iter__(self):
        for name in self._member_names_:
            m = self._member_map_[name]
            if m._value_ & self._value_ == m._value_:
                yield m

    def __len__(self):
        return sum(1 for _ in self.__iter__())

    def _other_value(self, other):
        if isinstance(other, self.__class__):
            return other._value_
        if self._member_type_ is not object and isinstance(other, self._member_type_):
            return other
        return NotImplemented

    def __or__(self, other):
        value = self._other_value(other)
        if value is NotImplemented:
            return NotImplemented
        return self.__class__(self._value_ | value)

    def __and__(self, other):
        value = self._other_value(other)
        if value is NotImplemented:
            return NotImplemented
        return self.__class__(self._value_ & value)

    def __xor__(self, other):
        value = self._other_value(other)
        if value is NotImplemented:
            return NotImplemented
        return self.__class__(self._value_ ^ value)

    __ror__ = __or__
    __rand__ = __and__
    __rxor__ = __xor__

    def __invert__(self):
        if self._boundary_ == 'keep':
            return self.__class__(self._all_bits_ & ~self._value_)
        return self.__class__(self._flag_mask_ & ~self._value_)


def _bin(num, width):
    return '0b0 ' + format(num, 'b').zfill(width)


class IntFlag(int, ReprEnum, Flag, boundary='keep'):
    """Flag whose members are also ints; unknown bits are kept."""

    __str__ = ReprEnum.__str__
    __format__ = ReprEnum.__format__
    # int comes first in the MRO: route the bitwise operators back to Flag's.
    __or__ = __ror__ = Flag.__or__
    __and__ = __rand__ = Flag.__and__
    __xor__ = __rxor__ = Flag.__xor__
    __invert__ = Flag.__invert__


_FlagDefined[0] = True
Flag._finish_flag_()
IntFlag._finish_flag_()


def unique(enumeration):
    """Class decorator: raise ValueError if any member is an alias."""
    duplicates = []
    for name, obj in enumeration.__members__.items():
        if name != obj.name:
            duplicates.append((name, obj.name))
    if duplicates:
        alias_details = ', '.join(f"{alias} -> {name}" for alias, name in duplicates)
        raise ValueError(f'duplicate values found in {enumeration!r}: {alias_details}')
    return enumeration
