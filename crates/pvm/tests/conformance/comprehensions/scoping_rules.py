"""Comprehension scoping: loop variables do not leak, the first iterable is evaluated outside, class bodies, walrus."""
x = "outer"
squares = [x * x for x in range(4)]
print(squares, x)
print({x for x in "ab"}, x, {x: 1 for x in "c"}, x, list(x for x in "d"), x)
n = 10
print([n + i for i in range(3)], [[n * j for j in range(i)] for i in range(3)])
class C:
    base = [1, 2, 3]
    factor = 10
    first_only = [v for v in base]
    try:
        scaled = [v * factor for v in base]
    except NameError as e:
        scaled = f"NameError: {e}"
print(C.first_only, C.scaled)
total = 0
values = [total := total + v for v in range(5)]
print(values, total)
data = [3, 8, 1, 9]
if any((big := v) > 5 for v in data):
    print("first big:", big)
funcs = [lambda: i for i in range(3)]
print([f() for f in funcs])
funcs = [lambda i=i: i for i in range(3)]
print([f() for f in funcs])
def outer():
    y = 5
    return [y + k for k in range(2)], (lambda: [y * k for k in range(2)])()
print(outer())
try:
    [undefined_thing for _ in range(1)]
except NameError as e:
    print(type(e).__name__, e)
print([i for i in range(3)] == list(range(3)), [(i, j) for i in range(2) for j in range(i, 2)])
