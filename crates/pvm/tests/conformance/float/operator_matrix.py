# Every arithmetic and comparison operator over ints, floats, signed zeros, infinities and NaN
# (the interpreter's int/float fast paths and the general path must agree with CPython).
nan = float('nan'); inf = float('inf')
vals = [0.0, -0.0, 1.5, -2.25, nan, inf, -inf, 3, -7, 0, 2**53 + 1, -(2**53) - 3, 10**18]
ops = ['+', '-', '*', '/', '<', '<=', '==', '!=', '>', '>=', '//', '%']
def run(a, b):
    res = []
    for f in (lambda: a + b, lambda: a - b, lambda: a * b, lambda: a / b, lambda: a < b, lambda: a <= b,
              lambda: a == b, lambda: a != b, lambda: a > b, lambda: a >= b, lambda: a // b, lambda: a % b, lambda: divmod(a, b)):
        try:
            res.append(repr(f()))
        except Exception as e:
            res.append(type(e).__name__)
    return res
for a in vals:
    for b in vals:
        print(repr(a), repr(b), *run(a, b))
