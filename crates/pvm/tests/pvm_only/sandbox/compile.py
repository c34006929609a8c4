c = compile("1", "f", "eval")
