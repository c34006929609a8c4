"""with inside loops, generators and functions: return/break/continue run __exit__, generator close runs it."""
log = []
class Guard:
    def __init__(self, n):
        self.n = n
    def __enter__(self):
        log.append(f"in{self.n}")
    def __exit__(self, *a):
        log.append(f"out{self.n}")
def loop():
    for i in range(4):
        with Guard(i):
            if i == 1:
                continue
            if i == 2:
                break
    return "done"
print(loop(), log); log.clear()
def early(flag):
    with Guard("e"):
        if flag:
            return "early"
        log.append("late")
    return "late"
print(early(True), early(False), log); log.clear()
def gen():
    with Guard("g"):
        yield 1
        yield 2
g = gen()
print(next(g), log)
g.close()
print(log); log.clear()
def gen_full():
    with Guard("f"):
        yield from range(2)
print(list(gen_full()), log); log.clear()
def raising():
    with Guard("r"):
        raise ValueError("r")
try:
    raising()
except ValueError:
    print(log)
