"""isinstance/issubclass with tuples, nested tuples, builtins, bool/int, object, and their errors."""
class A: pass
class B(A): pass
class C: pass
b = B()
print(isinstance(b, A), isinstance(b, (C, A)), isinstance(b, (C, (int, B))), isinstance(b, ()), isinstance(b, object))
print(issubclass(B, A), issubclass(A, B), issubclass(B, (C, A)), issubclass(bool, int), issubclass(int, object), issubclass(A, A))
print(isinstance(True, int), isinstance(1, bool), isinstance(1.0, (int, float)), isinstance("s", str), isinstance(b"", bytes))
print(isinstance([], list), isinstance({}, dict), isinstance(set(), (set, frozenset)), isinstance(None, type(None)), isinstance(int, type))
print(isinstance(range(1), range), isinstance(len, object), isinstance(A, type), issubclass(type, object), issubclass(object, type))
print(type(b) is B, type(b) == A, type(True).__name__, type(1.0) is float, type(A) is type, type(type) is type)
def attempt(label, fn):
    try:
        print(label, fn())
    except TypeError as e:
        print(label, type(e).__name__, e)
attempt("isinstance non-type", lambda: isinstance(1, 5))
attempt("isinstance tuple bad", lambda: isinstance(1, (int, 5)))
attempt("issubclass non-class", lambda: issubclass(5, int))
attempt("issubclass bad second", lambda: issubclass(int, 5))
attempt("isinstance list", lambda: isinstance(1, [int]))
class Meta(type):
    def __instancecheck__(cls, obj):
        return obj == "magic"
    def __subclasscheck__(cls, sub):
        return sub is int
class Magic(metaclass=Meta):
    pass
print(isinstance("magic", Magic), isinstance("other", Magic), issubclass(int, Magic), issubclass(str, Magic))
print(isinstance(1, int | str), isinstance("s", int | None), isinstance(None, int | None), issubclass(bool, int | str))
