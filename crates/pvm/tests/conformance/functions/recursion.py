def ack(m, n):
    if m == 0: return n + 1
    if n == 0: return ack(m - 1, 1)
    return ack(m - 1, ack(m, n - 1))
print(ack(2, 3))
def hanoi(n, a, b, c, moves):
    if n:
        hanoi(n - 1, a, c, b, moves); moves.append((a, c)); hanoi(n - 1, b, a, c, moves)
    return moves
m = hanoi(5, "A", "B", "C", [])
print(len(m), m[:3])
def perms(xs):
    if len(xs) <= 1: return [xs]
    return [[x] + p for i, x in enumerate(xs) for p in perms(xs[:i] + xs[i+1:])]
print(perms([1, 2, 3]))
