"""abc for the PVM: abstract base classes.

Covers: ABCMeta (computes __abstractmethods__ at class creation, refuses to instantiate a
class that still has abstract methods with CPython's message "Can't instantiate abstract
class X with abstract method(s) a, b", register() for virtual subclasses, __subclasshook__,
isinstance/issubclass through registrations, also registrations made on ABC subclasses),
ABC, abstractmethod, abstractclassmethod, abstractstaticmethod, abstractproperty,
update_abstractmethods, get_cache_token.

Needs from the VM: metaclasses with __new__(mcls, name, bases, namespace, **kwargs),
__call__ (the instantiation check), __instancecheck__ and __subclasscheck__, and the
__isabstractmethod__ attribute on functions, classmethod, staticmethod and property objects
(property must report it when any accessor is abstract).

Does not: use weak references or caches (registries are plain lists, kept for the life of the
program, which is one contract call), or find registrations through
object.__subclasses__() (ABCMeta records its ABC subclasses itself instead). Written for the
PVM from the documented behaviour; builtins only.
"""

_cache_token = [0]


def abstractmethod(funcobj):
    """Mark a method abstract: a class with an ABCMeta metaclass that does not override it
    cannot be instantiated."""
    funcobj.__isabstractmethod__ = True
    return funcobj


class abstractclassmethod(classmethod):
    """Deprecated: use classmethod with abstractmethod."""

    __isabstractmethod__ = True

    def __init__(self, callable):
        callable.__isabstractmethod__ = True
        super().__init__(callable)


class abstractstaticmethod(staticmethod):
    """Deprecated: use staticmethod with abstractmethod."""

    __isabstractmethod__ = True

    def __init__(self, callable):
        callable.__isabstractmethod__ = True
        super().__init__(callable)


class abstractproperty(property):
    """Deprecated: use property with abstractmethod."""

    __isabstractmethod__ = True


def _compute_abstracts(cls, namespace_items, bases):
    abstracts = {name for name, value in namespace_items
                 if getattr(value, "__isabstractmethod__", False)}
    for base in bases:
        for name in getattr(base, "__abstractmethods__", ()):
            value = getattr(cls, name, None)
            if getattr(value, "__isabstractmethod__", False):
                abstracts.add(name)
    return frozenset(abstracts)


class ABCMeta(type):
    """Metaclass for defining Abstract Base Classes (ABCs)."""

    def __new__(mcls, name, bases, namespace, /, **kwargs):
        cls = super().__new__(mcls, name, bases, namespace, **kwargs)
        cls.__abstractmethods__ = _compute_abstracts(cls, namespace.items(), bases)
        cls._abc_registry = []
        cls._abc_subclasses = []
        # Remember ABC subclasses on each ABC base, so a registration on a subclass is seen
        # by issubclass() against the base (CPython walks __subclasses__() for this).
        for base in cls.__mro__[1:]:
            subs = base.__dict__.get("_abc_subclasses")
            if subs is not None:
                subs.append(cls)
        return cls

    def __call__(cls, *args, **kwargs):
        abstracts = getattr(cls, "__abstractmethods__", None)
        if abstracts:
            names = sorted(abstracts)
            s = "" if len(names) == 1 else "s"
            raise TypeError(f"Can't instantiate abstract class {cls.__name__} "
                            f"with abstract method{s} {', '.join(names)}")
        return super().__call__(*args, **kwargs)

    def register(cls, subclass):
        """Register a virtual subclass of an ABC. Returns the subclass."""
        if not isinstance(subclass, type):
            raise TypeError("Can only register classes")
        if issubclass(subclass, cls):
            return subclass  # already a subclass
        if issubclass(cls, subclass):
            raise RuntimeError("Refusing to create an inheritance cycle")
        cls._abc_registry.append(subclass)
        _cache_token[0] += 1
        return subclass

    def __instancecheck__(cls, instance):
        """Override for isinstance(instance, cls)."""
        subclass = instance.__class__
        if cls.__subclasscheck__(subclass):
            return True
        subtype = type(instance)
        if subtype is not subclass:
            return cls.__subclasscheck__(subtype)
        return False

    def __subclasscheck__(cls, subclass):
        """Override for issubclass(subclass, cls)."""
        if not isinstance(subclass, type):
            raise TypeError("issubclass() arg 1 must be a class")
        hook = getattr(cls, "__subclasshook__", None)
        if hook is not None:
            ok = hook(subclass)
            if ok is not NotImplemented:
                return bool(ok)
        if cls in subclass.__mro__:
            return True
        for rcls in cls._abc_registry:
            if issubclass(subclass, rcls):
                return True
        for scls in cls._abc_subclasses:
            if issubclass(subclass, scls):
                return True
        return False


def update_abstractmethods(cls):
    """Recalculate the abstract methods of an ABC after methods were added or removed."""
    if not hasattr(cls, "__abstractmethods__"):
        return cls
    abstracts = set()
    for base in cls.__bases__:
        for name in getattr(base, "__abstractmethods__", ()):
            value = getattr(cls, name, None)
            if getattr(value, "__isabstractmethod__", False):
                abstracts.add(name)
    for name, value in cls.__dict__.items():
        if getattr(value, "__isabstractmethod__", False):
            abstracts.add(name)
    cls.__abstractmethods__ = frozenset(abstracts)
    return cls


def get_cache_token():
    """A token that changes whenever a virtual subclass is registered."""
    return _cache_token[0]


class ABC(metaclass=ABCMeta):
    """Helper class with ABCMeta as its metaclass: inherit from it to define an ABC."""

    __slots__ = ()

    @classmethod
    def __subclasshook__(cls, subclass):
        return NotImplemented
