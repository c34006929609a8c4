def ratio(a, b):
    return a / b
print(ratio(1, 4))
print(ratio(1, 0))
