"""with: suppressing exceptions selectively, a suppress() manager, and what the block leaves behind."""
class suppress:
    def __init__(self, *types):
        self.types = types
    def __enter__(self):
        return None
    def __exit__(self, et, ev, tb):
        return et is not None and issubclass(et, self.types)
class Ignore:
    def __init__(self, *types):
        self.types = types
        self.seen = None
    def __enter__(self):
        return self
    def __exit__(self, et, ev, tb):
        self.seen = et.__name__ if et else None
        return et is not None and issubclass(et, self.types)
with Ignore(KeyError) as ig:
    {}["missing"]
print("suppressed", ig.seen)
try:
    with Ignore(KeyError) as ig:
        [][0]
except IndexError as e:
    print("not suppressed", ig.seen, type(e).__name__)
with suppress(ZeroDivisionError, ValueError):
    1 / 0
print("after suppress")
with suppress(KeyError):
    x = 5
print("x is", x)
def find(d, k):
    with suppress(KeyError):
        return d[k]
    return "default"
print(find({"a": 1}, "a"), find({}, "a"))
results = []
for v in [1, 0, 2]:
    with Ignore(ZeroDivisionError):
        results.append(10 // v)
print(results)
class Truthy:
    def __enter__(self):
        return self
    def __exit__(self, *a):
        return "non-empty string"
with Truthy():
    raise TypeError("suppressed by truthy value")
print("truthy suppress ok")
