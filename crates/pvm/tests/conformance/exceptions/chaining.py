class AppError(Exception):
    def __init__(self, code, msg):
        super().__init__(msg); self.code = code
class DbError(AppError): pass
try:
    try:
        {}["k"]
    except KeyError as e:
        raise DbError(5, "db failed") from e
except AppError as e:
    print(type(e).__name__, e.code, e, type(e.__cause__).__name__, e.__cause__, e.__suppress_context__)
try:
    try:
        1 / 0
    except ZeroDivisionError:
        raise ValueError("during")
except ValueError as e:
    print(repr(e), type(e.__context__).__name__, e.__cause__)
try:
    raise ValueError("a", 1)
except Exception as e:
    print(e.args, str(e), repr(e))
print(str(KeyError("k")), str(KeyError()), repr(IndexError("i")))
print(issubclass(ZeroDivisionError, ArithmeticError), issubclass(KeyError, LookupError), issubclass(RecursionError, RuntimeError), issubclass(StopIteration, Exception))
