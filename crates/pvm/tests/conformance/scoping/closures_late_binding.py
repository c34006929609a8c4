"""Closures: late binding of loop variables, cells shared between closures, default-arg capture."""

funcs = [lambda: i for i in range(3)]
print([f() for f in funcs])
funcs = [lambda i=i: i for i in range(3)]
print([f() for f in funcs])

def make():
    fs = []
    for i in range(3):
        def f():
            return i
        fs.append(f)
    i = "changed"
    return fs
print([f() for f in make()])

def shared():
    value = []
    def add(x):
        value.append(x)
        return len(value)
    def peek():
        return list(value)
    return add, peek
add, peek = shared()
add(1); add(2)
print(peek())

# __closure__ cells
def outer(a, b):
    def inner():
        return a + b
    return inner
fn = outer(2, 3)
print(len(fn.__closure__), [c.cell_contents for c in fn.__closure__], fn())
print(outer.__closure__)

# closure over a variable assigned after the inner function is defined
def later():
    def get():
        return v
    v = "assigned later"
    return get()
print(later())

# recursive closure
def fact_maker():
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)
    return fact
print(fact_maker()(10))

# closures see rebinding of the enclosing variable
def rebinding():
    x = 1
    def get():
        return x
    x = 2
    r1 = get()
    x = 3
    return r1, get()
print(rebinding())

# generator expressions close over variables too
def gen_closure():
    n = 10
    g = (n + k for k in range(3))
    n = 100
    return list(g)
print(gen_closure())
