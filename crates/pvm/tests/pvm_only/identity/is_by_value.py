# `is` on ints, floats, strs, bytes and big ints answers by value (whitepaper "Forbidden
# operations: Identity"): CPython's answer depends on its caches (small ints, interning,
# constant folding); the PVM's is the same on every validator. Other objects keep identity.
a = "x" * 1000
b = "x" * 1000
c = "x" * 999 + "y"
print(a is b, a is not b, a is c)
n = 10 ** 30
m = 10 ** 29 * 10
k = 1000 * 1000
print(n is m, k is 10 ** 6, n is k)
x = float("1.5")
y = 3.0 / 2
z = -(x - x)
w = x - x
print(x is y, z is w, z == w)
print(bytes(3) is bytes([0, 0, 0]), bytes(3) is bytes(4))
print([] is [], {} is {}, None is None)
l = [1]
print(l is l, l is [1], (1, 2) is tuple([1, 2]))
print(True is True, (1 == 1) is True)
