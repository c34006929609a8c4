b = __builtins__
print(b)
