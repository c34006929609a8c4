fns = [eval, exec]
print("compiled")
fns[0]("1 + 1")
