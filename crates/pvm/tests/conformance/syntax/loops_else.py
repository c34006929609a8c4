"""for/else and while/else, break/continue in nested loops, loop variable after the loop, range edge cases."""
def find(items, target):
    for i, v in enumerate(items):
        if v == target:
            break
    else:
        return "not found"
    return f"found at {i}"
print(find([1, 2, 3], 2), find([1, 2, 3], 9), find([], 1))
n = 10
while n > 0:
    n -= 3
    if n == 4:
        break
else:
    print("while finished without break")
print("n =", n)
k = 0
while k < 3:
    k += 1
else:
    print("while else ran, k =", k)
pairs = []
for a in range(4):
    for b in range(4):
        if b > a:
            break
        if (a + b) % 2:
            continue
        pairs.append((a, b))
print(pairs)
for leftover in range(3):
    pass
print(leftover)
for never in []:
    pass
try:
    never
except NameError as e:
    print(type(e).__name__, e)
out = []
for i in range(10, 0, -3):
    out.append(i)
print(out, list(range(0)), list(range(5, 5)), list(range(-3, 3, 2)))
count = 0
for ch in "hello world":
    if ch == " ":
        continue
    count += 1
print(count)
i = 0
while True:
    i += 1
    if i >= 5:
        break
print(i)
