"""enum for the PVM: enumerations.

Covers: Enum, IntEnum, StrEnum, Flag, IntFlag, ReprEnum, auto, unique, EnumType (alias
EnumMeta), member/nonmember; members with .name/.value (and _name_/_value_), aliases,
lookup by value Color(1) and by name Color['RED'], iteration (definition order, aliases
skipped), len, `in`, reversed, __members__ (a read-only mappingproxy), dir() of classes and
members (CPython 3.11's __dir__), _missing_, _generate_next_value_, custom
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

Also: FlagBoundary (STRICT, CONFORM, EJECT, KEEP; Flag is STRICT and IntFlag KEEP by default,
`boundary=` picks another) with 3.11's pseudo-members, ~ and error messages; verify with
EnumCheck (UNIQUE, CONTINUOUS, NAMED_FLAGS); enum.property / DynamicClassAttribute;
_ignore_ as a list or a string; show_flag_values, bin; the global_enum_repr,
global_flag_repr and global_str functions; pickle_by_enum_name / pickle_by_global_name.

Does not: use __prepare__, so a name defined twice in the class body is not reported (the
last definition wins) and `_ignore_` is honoured only by deleting the listed names; name a
member 'name' or 'value'; provide pickling itself, _simple_enum, or global_enum (it needs
the defining module's globals, which the PVM does not expose).
Written for the PVM from the documented behaviour; builtins only.
"""

__all__ = ['EnumType', 'EnumMeta', 'Enum', 'IntEnum', 'StrEnum', 'Flag', 'IntFlag',
           'ReprEnum', 'auto', 'unique', 'property', 'verify', 'member', 'nonmember',
           'FlagBoundary', 'STRICT', 'CONFORM', 'EJECT', 'KEEP', 'global_flag_repr',
           'global_enum_repr', 'global_str', 'EnumCheck', 'CONTINUOUS', 'NAMED_FLAGS',
           'UNIQUE', 'pickle_by_global_name', 'pickle_by_enum_name']

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
        ignore = classdict.pop('_ignore_', ())
        if isinstance(ignore, str):
            ignore = ignore.replace(',', ' ').split()
        for name in ignore:
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
        # An EJECT flag hands back a plain int for values outside its members.
        if _FlagDefined[0] and issubclass(cls, Flag) and cls._boundary_ is EJECT \
                and isinstance(result, int):
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
        """Read-only live mapping of member names to members, including aliases."""
        # CPython returns MappingProxyType(cls._member_map_); a dict view's .mapping is the
        # same read-only proxy (the PVM has no types module).
        return cls._member_map_.keys().mapping

    def __dir__(cls):
        interesting = set(['__class__', '__contains__', '__doc__', '__getitem__',
                           '__init_subclass__', '__iter__', '__len__', '__members__',
                           '__module__', '__name__', '__qualname__'] + cls._member_names_)
        if cls._new_member_ not in (None, object.__new__):
            interesting.add('__new__')
        if cls._member_type_ is object:
            return sorted(interesting)
        # Whatever the mixed-in data type has.
        return sorted(set(dir(cls._member_type_)) | interesting)

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

    def __dir__(self):
        """Members' public names, as CPython 3.11's Enum.__dir__."""
        if self.__class__._member_type_ is object:
            interesting = set(['__class__', '__doc__', '__eq__', '__hash__', '__module__',
                               'name', 'value'])
        else:
            # CPython: object.__dir__(self), the instance's and its classes' names.
            interesting = set(getattr(self, '__dict__', ()))
            for klass in type(self).__mro__:
                interesting.update(klass.__dict__)
        for name in getattr(self, '__dict__', []):
            if name[0] != '_':
                interesting.add(name)
        for klass in self.__class__.mro():
            for name, obj in klass.__dict__.items():
                if name[0] == '_':
                    continue
                if isinstance(obj, property):
                    # An enum.property: a member's name shadows it unless it has a getter.
                    if obj.fget is not None or name not in self._member_map_:
                        interesting.add(name)
                    else:
                        interesting.discard(name)
                elif (name in self._member_map_ and obj is self._member_map_[name]
                      and self.__class__._member_type_ is object):
                    # CPython keeps members in the class as getter-less enum.property objects,
                    # which the branch above leaves out; the PVM keeps the members themselves.
                    interesting.discard(name)
                else:
                    interesting.add(name)
        return sorted(set(['__class__', '__doc__', '__eq__', '__hash__', '__module__'])
                      | interesting)

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
        # The data type's __format__ with an empty spec is str(self) (so a class that
        # overrides __str__, like re.RegexFlag, shows it in f-strings).
        if not format_spec:
            return str(self)
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


class FlagBoundary(StrEnum):
    """Control how out-of-range values are handled: "strict" raises ValueError (Flag),
    "conform" discards unknown bits, "eject" returns a plain int, "keep" keeps them
    (IntFlag)."""

    STRICT = auto()
    CONFORM = auto()
    EJECT = auto()
    KEEP = auto()


STRICT, CONFORM, EJECT, KEEP = FlagBoundary


class EnumCheck(StrEnum):
    """Various conditions to check an enumeration for (see verify)."""

    CONTINUOUS = "no skipped integer values"
    NAMED_FLAGS = "multi-flag aliases may not contain unnamed flags"
    UNIQUE = "one name per value"


CONTINUOUS, NAMED_FLAGS, UNIQUE = EnumCheck


def _iter_bits_lsb(num):
    """The single-bit values of a non-negative int, lowest first."""
    while num:
        b = num & (~num + 1)
        yield b
        num ^= b


def _high_bit(value):
    """Index of the highest set bit (-1 for 0)."""
    return value.bit_length() - 1


def show_flag_values(value):
    """The single-bit values making up value, lowest first."""
    return list(_iter_bits_lsb(value))


def bin(num, max_bits=None):
    """Like the builtin bin(), but with a sign bit and a space after the 0b sign: bin(10)
    is '0b0 1010', bin(~10) is '0b1 0101'; max_bits pads (with the sign bit) or truncates
    the digits from the left."""
    ceiling = 2 ** num.bit_length()
    if num >= 0:
        digits = format(num + ceiling, 'b')[1:]
        sign = '0b0'
    else:
        digits = format(~num ^ (ceiling - 1) + ceiling, 'b')[1:]
        sign = '0b1'
    if max_bits is not None and len(digits) < max_bits:
        digits = (sign[-1] * max_bits + digits)[-max_bits:]
    return f"{sign} {digits}"


class Flag(Enum, boundary=STRICT):
    """Support for bit flags: members combine with | & ^ ~."""

    _numeric_repr_ = repr


    @staticmethod
    def _generate_next_value_(name, start, count, last_values):
        if not count:
            return start if start is not None else 1
        high = max(last_values)
        return 2 ** high.bit_length() if high > 0 else 1

    @classmethod
    def _finish_flag_(cls):
        # Iteration lists only the canonical (single-bit) members, in definition order;
        # multi-bit members are aliases. The masks cover every member.
        mask = singles = 0
        canonical = []
        for name in cls._member_names_:
            value = cls._member_map_[name]._value_
            mask |= value
            if _is_single_bit(value):
                canonical.append(name)
                singles |= value
        setattr_ = type.__setattr__
        setattr_(cls, '_member_names_', canonical)
        setattr_(cls, '_flag_mask_', mask)
        setattr_(cls, '_singles_mask_', singles)
        setattr_(cls, '_all_bits_', 2 ** mask.bit_length() - 1)
        # Members listed out of value order iterate in definition order (as 3.11).
        values = [cls._member_map_[n]._value_ for n in canonical]
        setattr_(cls, '_iter_by_definition_', values != sorted(values))

    @classmethod
    def _iter_member_(cls, value):
        """The canonical members whose bits are all in value."""
        if cls._iter_by_definition_:
            for name in cls._member_names_:
                m = cls._member_map_[name]
                if m._value_ & value == m._value_:
                    yield m
        else:
            for bit in _iter_bits_lsb(value & cls._singles_mask_):
                yield cls._value2member_map_[bit]

    @classmethod
    def _missing_(cls, value):
        """Build the pseudo-member of a combination of flags; bits no member has are
        handled by the class's boundary (STRICT, CONFORM, EJECT or KEEP)."""
        if not isinstance(value, int):
            raise ValueError(f"{value!r} is not a valid {cls.__qualname__}")
        flag_mask = cls._flag_mask_
        singles_mask = cls._singles_mask_
        all_bits = cls._all_bits_
        boundary = cls._boundary_
        neg_value = None
        if not ~all_bits <= value <= all_bits or value & (all_bits ^ flag_mask):
            if boundary == STRICT:
                width = max(value.bit_length(), flag_mask.bit_length())
                raise ValueError(f"{cls!r} invalid value {value!r}\n    given "
                                 f"{bin(value, width)}\n  allowed {bin(flag_mask, width)}")
            elif boundary == CONFORM:
                value &= flag_mask
            elif boundary == EJECT:
                return value
            elif boundary == KEEP:
                if value < 0:
                    value += max(all_bits + 1, 2 ** value.bit_length())
            else:
                raise ValueError(f"{cls!r} unknown flag boundary {boundary!r}")
        if value < 0:
            neg_value = value
            value = all_bits + 1 + value
        unknown = value & ~flag_mask
        aliases = value & ~singles_mask
        member_value = value & singles_mask
        if unknown and boundary != KEEP:
            raise ValueError(f"{cls.__name__}({value!r}) -->  unknown values {unknown!r} "
                             f"[{bin(unknown)}]")
        if cls._member_type_ is object:
            pseudo = object.__new__(cls)
        else:
            pseudo = cls._member_type_.__new__(cls, value)
        if not hasattr(pseudo, '_value_'):
            pseudo._value_ = value
        if member_value or aliases:
            members = list(cls._iter_member_(member_value))
            combined = 0
            for m in members:
                combined |= m._value_
            if aliases:
                # Multi-bit members cover bits no single-bit member names.
                value = member_value | aliases
                for m in cls._member_map_.values():
                    if m not in members and m._value_ and m._value_ & value == m._value_:
                        members.append(m)
                        combined |= m._value_
            unknown = value ^ combined
            pseudo._name_ = '|'.join(m._name_ for m in members)
            if not combined:
                pseudo._name_ = None
            elif unknown and boundary == STRICT:
                raise ValueError(f"{cls!r}: no members with value {unknown!r}")
            elif unknown:
                pseudo._name_ += '|' + cls._numeric_repr_(unknown)
        else:
            pseudo._name_ = None
        pseudo.__objclass__ = cls
        pseudo = cls._value2member_map_.setdefault(value, pseudo)
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
        yield from self._iter_member_(self._value_)

    def __len__(self):
        return self._value_.bit_count()

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
        if self._boundary_ in (EJECT, KEEP):
            return self.__class__(~self._value_)
        return self.__class__(self._singles_mask_ & ~self._value_)


class IntFlag(int, ReprEnum, Flag, boundary=KEEP):
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


class verify:
    """Class decorator checking an enumeration for the given EnumCheck conditions."""

    def __init__(self, *checks):
        self.checks = checks

    def __call__(self, enumeration):
        cls_name = enumeration.__name__
        if issubclass(enumeration, Flag):
            enum_type = 'flag'
        elif issubclass(enumeration, Enum):
            enum_type = 'enum'
        else:
            raise TypeError("the 'verify' decorator only works with Enum and Flag")
        for check in self.checks:
            if check is UNIQUE:
                duplicates = [(name, obj.name) for name, obj in enumeration.__members__.items()
                              if name != obj.name]
                if duplicates:
                    details = ', '.join(f"{alias} -> {name}" for alias, name in duplicates)
                    raise ValueError(f'aliases found in {enumeration!r}: {details}')
            elif check is CONTINUOUS:
                values = {m.value for m in enumeration}
                if len(values) < 2:
                    continue
                low, high = min(values), max(values)
                if enum_type == 'flag':
                    candidates = (2 ** i for i in range(_high_bit(low) + 1, _high_bit(high)))
                else:
                    candidates = range(low + 1, high)
                # CPython lists every missing value and cuts the message at 256 characters;
                # stopping once that many are collected gives the same message with work
                # bounded by the message, not by the gap.
                text = f"invalid {enum_type} {cls_name!r}: missing values "
                parts = []
                size = len(text)
                for m in candidates:
                    if m in values:
                        continue
                    parts.append(str(m))
                    size += len(parts[-1]) + 2
                    if size - 2 >= 256:  # the joined message already has 256 characters
                        break
                if parts:
                    raise ValueError((text + ', '.join(parts))[:256])
            elif check is NAMED_FLAGS:
                member_names = enumeration._member_names_
                member_values = [m.value for m in enumeration]
                missing_names = []
                missing_value = 0
                for name, alias in enumeration._member_map_.items():
                    if name in member_names or alias.value < 0:
                        continue
                    missed = [v for v in _iter_bits_lsb(alias.value) if v not in member_values]
                    if missed:
                        missing_names.append(name)
                        for v in missed:
                            missing_value |= v
                if missing_names:
                    if len(missing_names) == 1:
                        alias = f'alias {missing_names[0]} is missing'
                    else:
                        alias = (f"aliases {', '.join(missing_names[:-1])} and "
                                 f"{missing_names[-1]} are missing")
                    if _is_single_bit(missing_value):
                        value = f'value 0x{missing_value:x}'
                    else:
                        value = f'combined values of 0x{missing_value:x}'
                    raise ValueError(f'invalid Flag {cls_name!r}: {alias} {value} '
                                     f'[use enum.show_flag_values(value) for details]')
        return enumeration


class DynamicClassAttribute:
    """A property that is looked up on instances only: on the class it raises
    AttributeError (so a class-level __getattr__ or a member of the same name can answer)."""

    def __init__(self, fget=None, fset=None, fdel=None, doc=None):
        self.fget = fget
        self.fset = fset
        self.fdel = fdel
        self.__doc__ = doc or getattr(fget, '__doc__', None)
        self.overwrite_doc = doc is None
        self.__isabstractmethod__ = bool(getattr(fget, '__isabstractmethod__', False))

    def __get__(self, instance, ownerclass=None):
        if instance is None:
            if self.__isabstractmethod__:
                return self
            raise AttributeError()
        if self.fget is None:
            raise AttributeError("unreadable attribute")
        return self.fget(instance)

    def __set__(self, instance, value):
        if self.fset is None:
            raise AttributeError("can't set attribute")
        self.fset(instance, value)

    def __delete__(self, instance):
        if self.fdel is None:
            raise AttributeError("can't delete attribute")
        self.fdel(instance)

    def getter(self, fget):
        fdoc = fget.__doc__ if self.overwrite_doc else None
        result = type(self)(fget, self.fset, self.fdel, fdoc or self.__doc__)
        result.overwrite_doc = self.overwrite_doc
        return result

    def setter(self, fset):
        result = type(self)(self.fget, fset, self.fdel, self.__doc__)
        result.overwrite_doc = self.overwrite_doc
        return result

    def deleter(self, fdel):
        result = type(self)(self.fget, self.fset, fdel, self.__doc__)
        result.overwrite_doc = self.overwrite_doc
        return result


class property(DynamicClassAttribute):
    """enum.property: on a member it works like property(); on the enum class it looks up
    the member of the same name (so members may be called 'name' or 'value')."""

    def __get__(self, instance, ownerclass=None):
        if instance is None or self.fget is None:
            try:
                return ownerclass._member_map_[self.name]
            except KeyError:
                raise AttributeError(f'{ownerclass!r} has no attribute {self.name!r}') from None
        return self.fget(instance)

    def __set__(self, instance, value):
        if self.fset is None:
            raise AttributeError(f"<enum {self.clsname!r}> cannot set attribute {self.name!r}")
        return self.fset(instance, value)

    def __delete__(self, instance):
        if self.fdel is None:
            raise AttributeError(
                f"<enum {self.clsname!r}> cannot delete attribute {self.name!r}")
        return self.fdel(instance)

    def __set_name__(self, ownerclass, name):
        self.name = name
        self.clsname = ownerclass.__name__


def pickle_by_enum_name(self, proto):
    """A __reduce_ex__ that pickles a member as getattr(its class, its name)."""
    return getattr, (self.__class__, self._name_)


def pickle_by_global_name(self, proto):
    """A __reduce_ex__ that pickles a member by its bare (module-global) name."""
    return self.name


def global_enum_repr(self):
    """repr() of a member as 'module.NAME', for enums whose members are module globals."""
    module = self.__class__.__module__.split('.')[-1]
    return f'{module}.{self._name_}'


def global_flag_repr(self):
    """repr() of a flag as 'module.A|module.B' (or 'module.Class(value)' if unnamed)."""
    module = self.__class__.__module__.split('.')[-1]
    cls_name = self.__class__.__name__
    if self._name_ is None:
        return f"{module}.{cls_name}({self._value_!r})"
    if _is_single_bit(self._value_):
        return f'{module}.{self._name_}'
    if self._boundary_ is not FlagBoundary.KEEP:
        return '|'.join(f'{module}.{name}' for name in self.name.split('|'))
    parts = []
    for n in self._name_.split('|'):
        if n[0].isdigit():
            parts.append(n)
        else:
            parts.append(f'{module}.{n}')
    return '|'.join(parts)


def global_str(self):
    """str() of a member as its bare name (or 'Class(value)' if unnamed)."""
    if self._name_ is None:
        return f"{self.__class__.__name__}({self._value_!r})"
    return self._name_
