# Generators: a lazy pipeline of generator functions and expressions.
def numbers(n):
    i = 0
    while i < n:
        yield i
        i += 1

def squares(it):
    for x in it:
        yield x * x

def evens(it):
    for x in it:
        if x % 2 == 0:
            yield x

total = sum(evens(squares(numbers(400000))))
print(total)
print(sum(x for x in range(400000) if x % 3 == 0))
