# collections.abc: the three import forms, and isinstance/issubclass of builtin types.
import collections.abc
import collections.abc as cabc
from collections.abc import Iterable, Mapping, Sequence, Hashable, Callable
import collections

print(collections.abc is cabc, collections.abc.Mapping is Mapping)
print(Mapping, cabc.MutableSequence, cabc.ByteString)
print(type(Mapping).__name__, Mapping.__module__, Mapping.__name__, Mapping.__qualname__)
print(sorted(n for n in cabc.__all__))

try:
    import collections.foo
except ImportError as e:
    print(type(e).__name__ in ("ImportError", "ModuleNotFoundError"), e)
try:
    from collections.abc import Nope
except ImportError as e:
    print(type(e).__name__, str(e).split(" (")[0])
try:
    import collections.abc.deeper
except ImportError as e:
    print(type(e).__name__ in ("ImportError", "ModuleNotFoundError"), e)


def g():
    yield 1


def f():
    pass


class K:
    def m(self):
        pass


samples = [
    ("int", 1), ("float", 1.5), ("str", "ab"), ("bytes", b"ab"), ("bytearray", bytearray(b"a")),
    ("list", [1]), ("tuple", (1,)), ("dict", {1: 2}), ("set", {1}), ("frozenset", frozenset({1})),
    ("range", range(3)), ("None", None), ("keys", {1: 2}.keys()), ("values", {1: 2}.values()),
    ("items", {1: 2}.items()), ("list_iter", iter([1])), ("gen", g()), ("func", f),
    ("builtin", len), ("method", K().m), ("class", K), ("instance", K()),
]
abcs = ["Hashable", "Iterable", "Iterator", "Reversible", "Generator", "Sized", "Container",
        "Callable", "Collection", "Sequence", "MutableSequence", "ByteString", "Set",
        "MutableSet", "Mapping", "MutableMapping", "MappingView", "KeysView", "ItemsView",
        "ValuesView", "Awaitable", "Coroutine", "AsyncIterable", "AsyncIterator"]
for name, obj in samples:
    yes = [a for a in abcs if isinstance(obj, getattr(cabc, a))]
    print(name, yes)

for t in (int, str, list, tuple, dict, set, frozenset, bytes, bytearray, range, type(None)):
    print(t.__name__, [a for a in abcs if issubclass(t, getattr(cabc, a))])

try:
    issubclass(1, Iterable)
except TypeError as e:
    print(type(e).__name__, e)
print(issubclass(Mapping, cabc.Collection), issubclass(cabc.MutableMapping, Mapping))
print(issubclass(cabc.Sequence, cabc.Reversible), issubclass(cabc.Set, cabc.Sized))
print(issubclass(cabc.KeysView, cabc.Set), issubclass(cabc.ValuesView, cabc.Set))
print(isinstance(collections.OrderedDict(), cabc.MutableMapping),
      isinstance(collections.Counter(), Mapping), isinstance(collections.deque(), Sequence),
      isinstance(collections.ChainMap(), cabc.MutableMapping),
      isinstance(collections.defaultdict(), Mapping))
print(sorted(cabc.Mapping.__abstractmethods__), sorted(cabc.MutableSequence.__abstractmethods__))
print(sorted(cabc.Set.__abstractmethods__), sorted(cabc.Generator.__abstractmethods__))
print(sorted(cabc.Coroutine.__abstractmethods__), sorted(cabc.Callable.__abstractmethods__))
for a in abcs:
    try:
        getattr(cabc, a)()
    except TypeError as e:
        print(a, e)
for v in ({}.keys(), {}.items(), [], {}, set(), bytearray()):
    try:
        hash(v)
    except TypeError as e:
        print(type(e).__name__, e)
print(type(hash({}.values())).__name__, [].__class__.__name__, len.__class__.__name__,
      f.__class__.__name__, g().__class__.__name__)
