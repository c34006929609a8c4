"""property with getter/setter/deleter, read-only and write errors, property objects and inheritance."""
class Temp:
    def __init__(self):
        self._c = 0.0
    @property
    def celsius(self):
        "Temperature in Celsius."
        return self._c
    @celsius.setter
    def celsius(self, v):
        if v < -273.15:
            raise ValueError("below absolute zero")
        self._c = v
    @celsius.deleter
    def celsius(self):
        print("deleting")
        self._c = None
    @property
    def fahrenheit(self):
        return self._c * 9 / 5 + 32
t = Temp()
t.celsius = 100
print(t.celsius, t.fahrenheit, Temp.celsius.__doc__, type(Temp.celsius).__name__)
del t.celsius
print(t.celsius)
for action in [lambda: setattr(t, "fahrenheit", 1), lambda: delattr(t, "fahrenheit"), lambda: setattr(t, "celsius", -300)]:
    try:
        action()
    except (AttributeError, ValueError) as e:
        print(type(e).__name__, e)
class Sub(Temp):
    @Temp.celsius.getter
    def celsius(self):
        return "sub:" + str(self._c)
s = Sub()
s.celsius = 5
print(s.celsius, Temp.celsius.fget is not Sub.celsius.fget, Sub.celsius.fset is Temp.celsius.fset)
def get_x(self):
    return self._x * 2
def set_x(self, v):
    self._x = v
class P:
    x = property(get_x, set_x, None, "doc of x")
p = P(); p.x = 21
print(p.x, P.x.__doc__, P.x.fdel, property().fget)
try:
    property(5)()
except TypeError as e:
    print(type(e).__name__, e)
