"""Descriptors: __get__/__set__/__delete__/__set_name__, data vs non-data precedence, class access."""
class Typed:
    def __set_name__(self, owner, name):
        self.name = "_" + name
        self.owner = owner.__name__
    def __get__(self, obj, objtype=None):
        if obj is None:
            return f"<Typed {self.name} of {objtype.__name__}>"
        return getattr(obj, self.name, None)
    def __set__(self, obj, value):
        if not isinstance(value, int):
            raise TypeError(f"{self.name[1:]} must be int, got {type(value).__name__}")
        setattr(obj, self.name, value)
    def __delete__(self, obj):
        delattr(obj, self.name)
class NonData:
    def __get__(self, obj, objtype=None):
        return "from descriptor"
class Model:
    age = Typed()
    size = Typed()
    nd = NonData()
m = Model()
m.age = 5
print(m.age, m.size, Model.age, Model.size.owner if False else Model.__dict__["size"].owner)
try:
    m.age = "old"
except TypeError as e:
    print(type(e).__name__, e)
del m.age
print(m.age, m.nd)
m.__dict__["nd"] = "instance wins over non-data"
m.__dict__["age"] = "data descriptor wins"
m.age = 7
print(m.nd, m.age, m.__dict__["age"])
class Counter:
    def __init__(self):
        self.calls = 0
    def __get__(self, obj, objtype=None):
        self.calls += 1
        return self.calls
class UsesCounter:
    c = Counter()
u = UsesCounter()
print(u.c, u.c, UsesCounter.c)
class Method:
    def __init__(self, f):
        self.f = f
    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return lambda *a: self.f(obj, *a)
class UsesMethod:
    @Method
    def hello(self, who):
        return f"hello {who} from {type(self).__name__}"
print(UsesMethod().hello("you"), type(UsesMethod.__dict__["hello"]).__name__)
