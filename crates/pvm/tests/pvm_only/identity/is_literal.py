# `is` with a literal operand is refused when the program is compiled.
x = 5
print(x is 5)
