chunks = []
while True:
    chunks.append("y" * 100000)
