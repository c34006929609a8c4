import functools

@functools.singledispatch
def show(x):
    return "object:" + repr(x)

@show.register(int)
def _(x):
    return "int:%d" % x

@show.register
def _(x: list):
    return "list of %d" % len(x)

def show_str(x):
    return "str:" + x
show.register(str, show_str)

class Animal: pass
class Dog(Animal): pass
show.register(Animal, lambda x: "animal:" + type(x).__name__)

print(show(1), show(True), show("a"), show([1, 2]), show(1.5), show(None))
print(show(Dog()), show(Animal()))
print(show.dispatch(int) is show.dispatch(bool), show.dispatch(str) is show_str)
print(show.dispatch(float) is show.registry[object])
print(sorted(k.__name__ for k in show.registry.keys()))
print(show.__name__)
try:
    show()
except TypeError as e:
    print("TypeError", e)
@show.register(bool)
def _(x):
    return "bool!"
print(show(True), show(0))
class Fmt:
    @functools.singledispatchmethod
    def f(self, arg):
        return "default"
    @f.register(int)
    def _(self, arg):
        return "int %d" % arg
    @f.register
    def _(self, arg: str):
        return "str " + arg
print(Fmt().f(3), Fmt().f("x"), Fmt().f(2.0))
@functools.singledispatch
def kw(x, *, scale=1):
    return x * scale
@kw.register(str)
def _(x, *, scale=1):
    return x.upper() * scale
print(kw(2, scale=3), kw("ab", scale=2))
