print(1 << 5000)
