"""__enter__/__exit__: return values, exception info passed to __exit__, suppression, exceptions in __exit__."""
class CM:
    def __init__(self, name, suppress=False):
        self.name, self.suppress = name, suppress
    def __enter__(self):
        print("enter", self.name)
        return self.name.upper()
    def __exit__(self, et, ev, tb):
        print("exit", self.name, et.__name__ if et else None, ev)
        return self.suppress
with CM("a") as v:
    print("body", v)
with CM("b", suppress=True):
    raise ValueError("swallowed")
print("after b")
try:
    with CM("c"):
        raise KeyError("kept")
except KeyError as e:
    print("caught", repr(e))
def early():
    with CM("d"):
        return "returned"
print(early())
for i in range(3):
    with CM(f"loop{i}"):
        if i == 1:
            continue
        if i == 2:
            break
class BadExit:
    def __enter__(self):
        return self
    def __exit__(self, *a):
        raise RuntimeError("exit failed")
try:
    with BadExit():
        raise ValueError("original")
except RuntimeError as e:
    print(type(e).__name__, e, type(e.__context__).__name__)
class NoExit:
    def __enter__(self):
        return self
try:
    with NoExit():
        pass
except (AttributeError, TypeError) as e:
    print(type(e).__name__, e)
