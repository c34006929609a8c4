"""OverflowError and RecursionError: float overflow, int->float conversion, deep recursion caught and retried."""
import math
def attempt(label, fn):
    try:
        print(label, fn())
    except (OverflowError, RecursionError, ValueError, TypeError) as e:
        print(label, type(e).__name__, e)
attempt("float pow", lambda: 10.0 ** 309)
attempt("int to float", lambda: float(2 ** 1100))
attempt("int true div", lambda: 2 ** 1100 / 3)
attempt("math exp", lambda: math.exp(710))
attempt("round inf", lambda: round(float("inf")))
attempt("ldexp", lambda: math.ldexp(1.0, 2000))
attempt("factorial float", lambda: math.factorial(2.5))
attempt("int huge str", lambda: len(str(10 ** 1000)))
depth = 0
def down(n):
    global depth
    depth = n
    return down(n + 1)
try:
    down(0)
except RecursionError as e:
    print("recursion stopped:", type(e).__name__, depth > 10)
print("recovered, can recurse again:", sum(range(10)))
def mutual_a(n):
    return mutual_b(n + 1)
def mutual_b(n):
    return mutual_a(n + 1)
attempt("mutual", lambda: mutual_a(0))
class Loop:
    def __repr__(self):
        return repr(self)
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)
print(fact(20), fact(25) > 10 ** 24)
