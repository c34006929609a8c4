"""await in a plain function is a SyntaxError."""

print("never printed")


def f(x):
    return await x
