def countdown(n):
    while n > 0:
        yield n
        n -= 1
    return "liftoff"
print(list(countdown(3)), sum(countdown(100)), max(countdown(5)))
def pipeline(data, *stages):
    for s in stages:
        data = s(data)
    return data
evens = lambda it: (x for x in it if x % 2 == 0)
doubled = lambda it: (x * 2 for x in it)
print(list(pipeline(range(10), evens, doubled)))
