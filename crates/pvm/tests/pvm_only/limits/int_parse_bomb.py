print(int("9" * 2000))
