# Recursive calls: the cost of a Python-to-Python call.
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

print(fib(27))
