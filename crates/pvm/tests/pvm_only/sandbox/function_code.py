def f(): return 1
print(f.__code__)
