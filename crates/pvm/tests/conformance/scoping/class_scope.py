"""Class bodies as scopes: names are not visible from methods or nested comprehensions' inner loops."""

x = "module"

class A:
    x = "class"
    y = x + "!"
    def method(self):
        return x  # module scope, not the class body
    items = [x for _ in range(2)]  # the element expression runs in a function scope: module x
    first = [c for c in x]  # the outermost iterable is evaluated in the class scope

print(A.y, A().method(), A.items, A.first)

def f():
    x = "function"
    class B:
        print("B body sees", x)
        x = "B attr"
        print("after assign", x)
    return B.x
print(f())

def g():
    v = "enclosing"
    class C:
        w = v  # a free variable read from a class body
        def get(self):
            return v
    return C.w, C().get()
print(g())

# class attribute lookup vs instance shadowing
class Counter:
    count = 0
    def incr(self):
        self.count += 1  # creates an instance attribute
        return self.count
c = Counter()
print(c.incr(), c.incr(), Counter.count, c.count)
del c.count
print(c.count)

# names defined in a class body
class D:
    a = 1
    b = a + 1
    del a
print(hasattr(D, "a"), D.b)

# the class name is bound only after the body runs
try:
    class E:
        ref = E
except NameError as e:
    print(type(e).__name__, e)

# methods see the module name binding of the class
class F:
    def me(self):
        return F.__name__
print(F().me())
