x = 2 ** 4095
print(x.bit_length())
y = x + (x - 1)
print(y.bit_length())
try:
    x * 2
except OverflowError:
    print("OverflowError at 4097 bits")
