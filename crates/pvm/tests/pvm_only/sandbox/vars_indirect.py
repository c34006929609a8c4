f = vars
print(f(type("A", (), {})()))
f()
