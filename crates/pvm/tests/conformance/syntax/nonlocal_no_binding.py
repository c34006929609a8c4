"""nonlocal needs a binding in an enclosing function."""
print("never printed")


def f():
    nonlocal missing
