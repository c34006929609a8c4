exec("x = 1")
