"""global and nonlocal: rebinding from inner scopes, declarations before use, counters."""

counter = 0

def bump():
    global counter
    counter += 1
    return counter

bump(); bump()
print("counter", counter)

def make_counter():
    n = 0
    def inc(step=1):
        nonlocal n
        n += step
        return n
    def get():
        return n
    return inc, get

inc, get = make_counter()
inc(); inc(5)
print("closure", get())
inc2, get2 = make_counter()
print("independent", get2(), get())

def outer():
    x = "outer"
    def middle():
        x = "middle"
        def inner():
            nonlocal x
            x = "inner set middle"
        inner()
        return x
    m = middle()
    return x, m
print(outer())

def define_global():
    global created_later
    created_later = "made inside a function"
define_global()
print(created_later)

def shadow():
    counter = "local"
    return counter
print(shadow(), counter)

# global in a nested function refers to module scope, not the enclosing function
def enclosing():
    counter = "enclosing"
    def g():
        global counter
        return counter
    return g()
print(enclosing())

# nonlocal through two levels
def a():
    v = 1
    def b():
        def c():
            nonlocal v
            v *= 10
        c(); c()
    b()
    return v
print(a())

# class bodies: global/nonlocal work there too
def class_in_func():
    value = 1
    class K:
        nonlocal value
        value = 2
    return value
print(class_in_func())
