total = 0
def add(n):
    global total
    total += n
for i in range(5): add(i)
print(total)
def outer():
    a = []
    b = 0
    def inner():
        nonlocal b
        a.append(b)
        b += 1
    for _ in range(3): inner()
    return a, b
print(outer())
def shadow():
    total = "local"
    return total
print(shadow(), total)
