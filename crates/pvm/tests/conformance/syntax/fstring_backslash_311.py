"""Python 3.11 f-strings: a backslash in an expression part is a SyntaxError (3.12 allows it)."""
print("never printed")
print(f"{chr(10) + '\\n'}")
