def find(xs, target):
    i = 0
    while i < len(xs):
        if xs[i] == target:
            print("found at", i); break
        i += 1
    else:
        print("not found")
find([1, 2, 3], 2); find([1, 2, 3], 9)
for n in range(2, 20):
    for d in range(2, n):
        if n % d == 0: break
    else:
        print(n, end=" ")
print()
x = 0
while (x := x + 1) < 5: pass
print(x)
