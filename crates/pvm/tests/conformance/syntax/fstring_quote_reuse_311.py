"""Python 3.11 f-strings: the string's own quote cannot appear inside an expression part (3.12 allows it)."""
print("never printed")
print(f"{"nested"}")
