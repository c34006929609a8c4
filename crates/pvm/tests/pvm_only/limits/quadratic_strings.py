# pvm-args: --cycles 5000000
s = ""
for i in range(10 ** 9):
    s = s + "x" * 1000
