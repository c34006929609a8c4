"""Adjacent instructions the interpreter runs as one (superinstructions): loads and stores of
locals, comparisons feeding a branch, and loop back edges, on their fast paths and off them."""


def unbound_second_load():
    a = 1
    try:
        print(a, b)  # load a, load b: b is not bound yet
    except UnboundLocalError as e:
        print("unbound:", e)
    b = 2
    return a + b


def unbound_after_store():
    a = 1
    try:
        c = a
        return b  # store c, load b
    except UnboundLocalError as e:
        print("unbound:", e, c)
    b = 3
    return b


def unbound_first_load(flag):
    if flag:
        x = 1
    try:
        return x, 2  # load x, load const
    except UnboundLocalError as e:
        return str(e)


class Odd:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return [self.v] if self.v < other.v else []

    def __eq__(self, other):
        return 0 if self.v == other.v else "yes"


def comparisons():
    out = []
    nan = float("nan")
    pairs = [(1, 2), (2, 1), (2, 2), (1.5, 1), (1, 1.0), (nan, nan), (nan, 1.0),
             (True, 1), (-(2 ** 70), 3), ("a", "b"), ((1, 2), (1, 3)),
             (Odd(1), Odd(2)), (Odd(2), Odd(1))]
    for a, b in pairs:
        r = []
        if a < b:
            r.append("lt")
        if a == b:
            r.append("eq")
        if not (a == b):
            r.append("ne")
        out.append(r)
    i, n = 0, 5
    while i < n:
        i = i + 1
    out.append(i)
    f = 0.0
    while f < 2.5:
        f = f + 0.5
    out.append(f)
    x = 3
    out.append(1 < x < 5)
    out.append(1 < x > 5)
    return out


def swaps():
    a, b = 1, 2
    a, b = b, a
    c = d = a
    e, f = c + 1, d - 1
    return a, b, c, d, e, f


def loops():
    out = []
    for i in range(4):
        if i == 1:
            continue
        if i == 3:
            break
        out.append(i)
    else:
        out.append("no break")
    for i in range(3):
        out.append(i)
    else:
        out.append("else")
    for ch in "ab":
        for x in (1, 2):
            out.append(ch * x)
    for k in {"p": 1, "q": 2}:
        out.append(k)
    for v in (n * n for n in range(4)):
        out.append(v)
    for i in []:
        out.append("never")
    j = 0
    for _ in range(100000):
        j += 1
    out.append(j)
    return out


print(unbound_second_load())
print(unbound_after_store())
print(unbound_first_load(True), unbound_first_load(False))
print(comparisons())
print(swaps())
print(loops())
