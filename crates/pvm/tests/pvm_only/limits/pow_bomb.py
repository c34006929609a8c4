print(pow(3, 10 ** 6))
