def counter():
    n = 0
    def inc(k=1):
        nonlocal n
        n += k
        return n
    return inc
c = counter(); c(); c(5)
print(c(), counter()())
fs = [lambda i=i: i * i for i in range(5)]
print([f() for f in fs])
fs2 = [lambda: i for i in range(3)]
print([f() for f in fs2])
x = 10
def outer():
    global x
    x += 1
    def inner():
        return x * 2
    return inner()
print(outer(), x)
def make_adders():
    return [(lambda n: (lambda v: v + n))(n) for n in (1, 10, 100)]
print([a(1) for a in make_adders()])
