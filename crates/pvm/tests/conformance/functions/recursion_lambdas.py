"""Recursion (mutual, with accumulators, memoized) and lambdas (defaults, immediately called, in sort keys)."""
def is_even(n):
    return True if n == 0 else is_odd(n - 1)
def is_odd(n):
    return False if n == 0 else is_even(n - 1)
print(is_even(10), is_odd(7), is_even(7))
def ackermann(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann(m - 1, 1)
    return ackermann(m - 1, ackermann(m, n - 1))
print(ackermann(2, 3))
def hanoi(n, a="A", b="B", c="C", moves=None):
    moves = [] if moves is None else moves
    if n:
        hanoi(n - 1, a, c, b, moves)
        moves.append(a + c)
        hanoi(n - 1, b, a, c, moves)
    return moves
print(len(hanoi(6)), hanoi(2))
def perms(s):
    return [s] if len(s) <= 1 else [c + p for i, c in enumerate(s) for p in perms(s[:i] + s[i + 1:])]
print(perms("abc"))
memo = {}
def paths(r, c):
    if (r, c) in memo:
        return memo[(r, c)]
    memo[(r, c)] = 1 if r == 0 or c == 0 else paths(r - 1, c) + paths(r, c - 1)
    return memo[(r, c)]
print(paths(10, 10))
print((lambda x, y=2: x ** y)(5), (lambda *a: a)(1, 2), (lambda **k: k)(a=1), (lambda: "no args")())
people = [("ann", 31), ("bob", 25), ("cid", 31)]
print(sorted(people, key=lambda p: (-p[1], p[0])), max(people, key=lambda p: p[1])[0])
ops = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}
print({k: f(6, 3) for k, f in ops.items()}, (lambda: (yield))().__class__.__name__ if False else "skip")
fact = lambda n: 1 if n < 2 else n * fact(n - 1)
print(fact(15), fact.__name__, (lambda: 0).__name__)
