"""callable(), type() with one and three arguments, repr of builtins/functions/classes/methods."""
class K:
    def m(self):
        return 1
    @staticmethod
    def s():
        return 2
    @classmethod
    def c(cls):
        return cls.__name__
    def __call__(self):
        return "called"
def f():
    pass
print(callable(f), callable(K), callable(K()), callable(K().m), callable(len), callable(5), callable("s"), callable(lambda: 0))
print(callable(K.s), callable(K.c), K().m(), K.s(), K.c(), K()(), callable(type), callable(None))
T = type("T", (K,), {"x": 5, "hello": lambda self: f"hi {self.x}"})
t = T()
print(T.__name__, T.__bases__[0].__name__, t.x, t.hello(), t.m(), isinstance(t, K), type(t) is T, T.__mro__[1] is K)
print(type(5).__name__, type("s") is str, type(None).__name__, type(len).__name__, type(f).__name__, type(K().m).__name__)
print(repr(len), repr(K)[:15], repr(f)[:11], repr(None), repr(...), repr(NotImplemented), repr(type), repr(int), repr(object))
print(str(K.m)[:13], f.__name__, K.m.__name__, K.m.__qualname__, K().m.__name__, len.__name__, K.c.__name__)
def attempt(label, fn):
    try:
        print(label, fn())
    except TypeError as e:
        print(label, type(e).__name__, e)
attempt("type two args", lambda: type("X", (object,)))
attempt("type bad bases", lambda: type("X", 5, {}))
attempt("call non-callable", lambda: 5())
attempt("call str", lambda: "s"())
attempt("call None", lambda: None())
attempt("call module func wrong", lambda: len(1, 2))
attempt("instance not callable", lambda: T.__new__(T)() if False else object()())
