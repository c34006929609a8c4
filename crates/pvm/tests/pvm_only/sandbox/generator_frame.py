def g():
    yield 1
print(g().gi_frame)
