"""User exception classes: args, str/repr, extra attributes, hierarchies, __str__ overrides, catching by base."""
class AppError(Exception):
    pass
class NotFound(AppError):
    def __init__(self, key, where="db"):
        super().__init__(f"{key!r} not found in {where}")
        self.key, self.where = key, where
class Invalid(AppError):
    def __str__(self):
        return f"invalid: {', '.join(map(str, self.args))}"
class NoArgs(AppError):
    pass
for exc in [NotFound("k"), NotFound(5, where="cache"), Invalid("a", 2), NoArgs(), AppError("x", "y"), AppError()]:
    print(type(exc).__name__, "|", str(exc), "|", repr(exc), "|", exc.args, "|", isinstance(exc, AppError), isinstance(exc, Exception))
try:
    raise NotFound("user:1")
except AppError as e:
    print("caught as base:", e, e.key, e.where)
try:
    raise Invalid
except Invalid as e:
    print("raised class:", repr(e), e.args, str(e))
class WithRepr(Exception):
    def __repr__(self):
        return "WithRepr!"
print(repr(WithRepr("z")), str(WithRepr("z")), [WithRepr()])
class MultiBase(KeyError, AppError):
    pass
try:
    raise MultiBase("mb")
except AppError as e:
    print("multi", type(e).__name__, str(e), isinstance(e, LookupError))
e = ValueError(1, 2)
e.args = ("replaced",)
print(e, e.args)
print(issubclass(NotFound, Exception), NotFound.__mro__[1].__name__, NotFound.__bases__[0].__name__)
try:
    raise AppError("final")
except (TypeError, AppError) as e:
    print("tuple catch", e)
try:
    raise 5
except TypeError as e:
    print(type(e).__name__, e)
class NotAnException:
    pass
try:
    raise NotAnException()
except TypeError as e:
    print(type(e).__name__, e)
try:
    try:
        raise ValueError("v")
    except NotAnException:
        pass
except TypeError as e:
    print(type(e).__name__, e)
