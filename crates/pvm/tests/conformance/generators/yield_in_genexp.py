"""yield inside a generator expression is a SyntaxError."""
print("never printed")


def f():
    return list((yield x) for x in range(3))
