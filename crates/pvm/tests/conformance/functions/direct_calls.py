# Calls the dispatch loop runs in place (a plain function or method called positionally,
# defaults filled; a plain class's __init__): results, defaults, exceptions unwinding through
# several such frames, handlers and finally blocks at each level, recursion limits, and
# generators and closures on both sides of such calls.


def add(a, b=10, c=100):
    return a + b + c


def shared(x, acc=[]):
    acc.append(x)
    return len(acc)


print(add(1), add(1, 2), add(1, 2, 3))
print([shared(i) for i in range(4)])


class Point:
    def __init__(self, x, y=0):
        self.x, self.y = x, y

    def moved(self, dx, dy=0):
        return Point(self.x + dx, self.y + dy)

    def norm1(self):
        return abs(self.x) + abs(self.y)


p = Point(1).moved(2).moved(3, 4)
print(p.x, p.y, p.norm1())


class Loud:
    def __init__(self, v):
        self.v = v
        return None if v >= 0 else v


try:
    Loud(-1)
except TypeError as e:
    print("TypeError:", e)
print(Loud(2).v)


def level3(n):
    if n == 0:
        raise ValueError("bottom")
    return level3(n - 1)


def level2(n, log):
    try:
        return level3(n)
    finally:
        log.append("level2 finally")


def level1(n):
    log = []
    try:
        level2(n, log)
    except ValueError as e:
        log.append("caught " + str(e))
    return log


print(level1(5))


def reraiser(n):
    try:
        return level3(n)
    except ValueError:
        raise KeyError(n)


try:
    reraiser(3)
except KeyError as e:
    print("KeyError", e, type(e.__context__).__name__)


def down(n):
    return down(n + 1)


try:
    down(0)
except RecursionError as e:
    print("RecursionError:", e)
print("after recursion", add(0))


def gen(n):
    for i in range(n):
        yield add(i, 0, 0)


def total(n):
    return sum(gen(n))


print(total(10), list(gen(3)))


def counter():
    count = 0

    def bump(by=1):
        nonlocal count
        count += by
        return count

    return bump


b = counter()
print(b(), b(), b(5))


def captured(x):
    def inner():
        return x * 2

    return inner()


print([captured(i) for i in range(3)])


def wrong(a, b):
    return a


for args in [(1,), (1, 2, 3)]:
    try:
        wrong(*args) if len(args) != 1 else wrong(args[0])
    except TypeError as e:
        print("TypeError:", e)


def deep_finally(n, out):
    try:
        if n:
            deep_finally(n - 1, out)
        else:
            1 / 0
    finally:
        out.append(n)


out = []
try:
    deep_finally(3, out)
except ZeroDivisionError:
    print("zero", out)
