"""__debug__ cannot be assigned."""
print("never printed")
__debug__ = False
