"""Class decorators and decorating methods: adding attributes, registering classes, wrapping methods."""
def add_repr(cls):
    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{cls.__name__}({fields})"
    cls.__repr__ = __repr__
    return cls
plugins = []
def plugin(cls):
    plugins.append(cls.__name__)
    return cls
def singleton(cls):
    instances = {}
    def get(*a, **k):
        if cls not in instances:
            instances[cls] = cls(*a, **k)
        return instances[cls]
    return get
@plugin
@add_repr
class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y
print(Point(1, "a"), plugins)
@singleton
class Config:
    def __init__(self):
        self.values = {}
c1, c2 = Config(), Config()
c1.values["k"] = 1
print(c1 is c2, c2.values, type(Config).__name__)
def logged(method):
    def wrapper(self, *a):
        result = method(self, *a)
        self.log.append((method.__name__, a, result))
        return result
    return wrapper
class Calc:
    def __init__(self):
        self.log = []
    @logged
    def add(self, a, b):
        return a + b
    @logged
    def neg(self, a):
        return -a
calc = Calc()
calc.add(1, 2); calc.neg(5)
print(calc.log)
def with_slots_count(cls):
    cls.method_count = sum(1 for v in vars(cls).values() if callable(v))
    return cls
@with_slots_count
class Three:
    def a(self): pass
    def b(self): pass
    def c(self): pass
print(Three.method_count)
