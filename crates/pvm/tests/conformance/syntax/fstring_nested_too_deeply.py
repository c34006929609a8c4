"""Python 3.11 allows two levels of f-string format-spec nesting."""
print("never printed")
print(f"{1:{2:{3}}}")
