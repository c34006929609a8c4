# pvm-args: --max-depth 32
def down(n):
    return down(n + 1)
try:
    down(0)
except RecursionError:
    print("RecursionError caught")
