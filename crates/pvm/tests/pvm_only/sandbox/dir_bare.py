class A:
    pass
print(dir(A()) == dir(A))
print(dir())
