class CM:
    def __init__(self, name, suppress=False): self.name = name; self.suppress = suppress
    def __enter__(self): print("enter", self.name); return self.name.upper()
    def __exit__(self, et, ev, tb):
        print("exit", self.name, et.__name__ if et else None, ev)
        return self.suppress
with CM("a") as x, CM("b") as y: print("body", x, y)
with CM("s", True): raise KeyError("k")
print("after suppressed")
try:
    with CM("n"): 1 / 0
except ZeroDivisionError as e: print("caught", e)
class Call:
    def __call__(self, *a, **k): return ("called", a, sorted(k))
print(Call()(1, 2, z=3), callable(Call()), callable(3))
