# pvm-args: --cycles 100000
n = 0
while True:
    n += 1
