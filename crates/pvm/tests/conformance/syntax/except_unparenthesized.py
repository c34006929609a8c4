"""except A, B: (Python 3.14 syntax) is a SyntaxError in 3.11."""
print("never printed")
try:
    pass
except ValueError, TypeError:
    pass
