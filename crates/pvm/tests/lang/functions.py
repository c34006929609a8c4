def f(a, b=2, *args, c, d=4, **kw):
    return (a, b, args, c, d, sorted(kw.items()))
print(f(1, c=3))
print(f(1, 5, 6, 7, c=3, e=9, d=1))
def g(a, /, b, *, c=1): return a, b, c
print(g(1, b=2), g(1, 2, c=3))
try:
    g(a=1, b=2)
except TypeError as e:
    print("TE", e)
try:
    f()
except TypeError as e:
    print("TE", e)
print(f(*[1, 2], **{"c": 5}))
lam = lambda x, *y, **z: (x, y, z)
print(lam(1, 2, k=3))
x = 10
def outer():
    x = 1
    def mid():
        def inner():
            return x + 1
        return inner()
    return mid()
print(outer())
def counter():
    n = 0
    def inc(k=1):
        nonlocal n
        n += k
        return n
    return inc
c = counter(); c(); c(5); print(c())
def gl():
    global x
    x = 99
gl(); print(x)
print([i * j for i in range(3) for j in range(3) if i != j])
print({i: [j for j in range(i)] for i in range(4)})
gen = (x * 2 for x in range(5)); print(sum(gen), list(gen))
a, (b, c), *d = 1, (2, 3), 4, 5
print(a, b, c, d)
first, *_, last = "hello"
print(first, last)
print("abcdef"[1:5:2], "abcdef"[::-2], [1,2,3,4,5][-3:], (1,2,3)[:-1])
l = list(range(10)); l[2:5] = ["x"]; print(l); del l[::3]; print(l)
print(f"{3.14159:.2f} {42:05d} {'hi':^6}| {1234567:,} {0.5:%} {255:#x} {-3:+d} {'x'!r}")
print("{0} {1} {0}".format("a", "b"), "{name}!".format(name="n"), "%d%%" % 50, "%r %s" % ("a", [1]))
print(repr(1.0), repr(0.1), 1e16, 1e15, 123456789012345678.0, 1e-5, 0.0001, float("nan"), -float("inf"))
print(7 % -3, -7 % 3, 7.5 // 2, -7.5 // 2, divmod(-7, 2), 2 ** -1, abs(-3), round(2.5), round(3.5), round(1.2345, 2))
print(int("ff", 16), int("0b101", 0), int(3.9), int(-3.9), float("1e3"), str(1.5), bool([]), bool(" "))
print(max([3, 1, 2]), min("bca"), max([], default=0), max(1, 5, 3, key=lambda v: -v), sorted([3,1,2], reverse=True))
print(list(enumerate("ab", 1)), list(zip([1,2], "ab")), list(map(str, [1,2])), list(filter(None, [0,1,2])))
print(isinstance(True, int), issubclass(bool, int), type(1) is int, type("") == str, callable(len))
print(hex(255), oct(8), bin(5), chr(65), ord("a"), hash(1) == hash(1.0), pow(3, 4, 5), pow(2, -1, 7))
