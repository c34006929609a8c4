class A:
    pass
print(vars(A()))
print(vars())
