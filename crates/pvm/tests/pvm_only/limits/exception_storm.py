# pvm-args: --cycles 300000
n = 0
while True:
    try:
        raise ValueError(n)
    except ValueError:
        n += 1
