f = lambda: 0
print(f.__globals__)
