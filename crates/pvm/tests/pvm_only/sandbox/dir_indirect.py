class A:
    x = 1
print([n for n in dir(A()) if not n.startswith("_")])
f = dir
f()
