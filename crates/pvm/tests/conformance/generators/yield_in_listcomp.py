"""yield inside a list comprehension is a SyntaxError."""
print("never printed")


def f():
    return [(yield x) for x in range(3)]
