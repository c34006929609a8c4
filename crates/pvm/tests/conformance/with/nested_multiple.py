"""with: several items in one statement, nested blocks, exit order, targets that unpack, exceptions in __enter__."""
log = []
class R:
    def __init__(self, name, fail_enter=False):
        self.name, self.fail_enter = name, fail_enter
    def __enter__(self):
        if self.fail_enter:
            raise RuntimeError(f"{self.name} enter failed")
        log.append(f"enter {self.name}")
        return (self.name, len(self.name))
    def __exit__(self, *exc):
        log.append(f"exit {self.name} {exc[0].__name__ if exc[0] else None}")
        return False
with R("a") as a, R("bb") as (name, size), R("c"):
    log.append(f"body {a} {name} {size}")
print(log); log.clear()
with R("outer"):
    with R("inner"):
        log.append("deep")
print(log); log.clear()
try:
    with R("ok"), R("bad", fail_enter=True), R("never"):
        log.append("unreachable")
except RuntimeError as e:
    log.append(f"caught {e}")
print(log); log.clear()
try:
    with R("x"), R("y"):
        raise ValueError("boom")
except ValueError:
    pass
print(log); log.clear()
with (R("p") as p, R("q") as q):
    log.append(f"parenthesized {p[0]} {q[0]}")
print(log)
