print(eval("1 + 1"))
