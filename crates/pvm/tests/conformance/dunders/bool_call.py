"""__bool__ and __len__ truthiness, __call__ objects, callable instances with state and arguments."""
class Flag:
    def __init__(self, v):
        self.v = v
    def __bool__(self):
        return self.v
class Sized:
    def __len__(self):
        return 2
class Both:
    def __bool__(self):
        return False
    def __len__(self):
        return 5
print(bool(Flag(True)), bool(Flag(False)), bool(Sized()), bool(Both()), bool(object()), not Flag(False))
print([x for x in [Flag(True), Flag(False), Sized()] if x].__len__(), Flag(False) or "fallback", Flag(True) and "second")
class BadBool:
    def __bool__(self):
        return 1
try:
    bool(BadBool())
except TypeError as e:
    print(type(e).__name__, e)
try:
    if BadBool():
        pass
except TypeError as e:
    print(type(e).__name__, e)
class Adder:
    def __init__(self, n):
        self.n = n
        self.calls = 0
    def __call__(self, x, *rest, scale=1):
        self.calls += 1
        return (self.n + x + sum(rest)) * scale
add5 = Adder(5)
print(add5(1), add5(1, 2, 3), add5(1, scale=10), add5.calls, callable(add5), list(map(add5, [0, 1])))
try:
    add5()
except TypeError as e:
    print(type(e).__name__, e)
class Chain:
    def __init__(self, path=()):
        self.path = path
    def __getattr__(self, name):
        return Chain(self.path + (name,))
    def __call__(self, *args):
        return f"{'.'.join(self.path)}{args}"
print(Chain().api.users.get(7), Chain().x())
