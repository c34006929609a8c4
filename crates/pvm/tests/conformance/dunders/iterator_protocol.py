"""Iterator protocol: __iter__ returning self, __next__ raising StopIteration, exhaustion, iter() on sequences."""
class Fib:
    def __init__(self, limit):
        self.a, self.b, self.limit = 0, 1, limit
    def __iter__(self):
        return self
    def __next__(self):
        if self.a > self.limit:
            raise StopIteration
        v = self.a
        self.a, self.b = self.b, self.a + self.b
        return v
f = Fib(50)
print(list(f), list(f), next(iter(Fib(5))))
it = iter(Fib(3))
print(next(it), next(it), next(it), next(it), next(it, "done"))
class OldSeq:
    def __getitem__(self, i):
        if i >= 4:
            raise IndexError
        return i * i
print(list(OldSeq()), 9 in OldSeq(), [x for x in OldSeq()], list(zip(OldSeq(), "ab")))
class NotIter:
    def __iter__(self):
        return 5
class NoNext:
    def __iter__(self):
        return self
for bad in [lambda: iter(NotIter()), lambda: list(NotIter()), lambda: next(NoNext()), lambda: iter(NoNext())]:
    try:
        print(bad())
    except TypeError as e:
        print(type(e).__name__, e)
class Pairs:
    def __init__(self, d):
        self.d = d
    def __iter__(self):
        yield from sorted(self.d.items())
print(list(Pairs({"b": 2, "a": 1})), dict(Pairs({"z": 0})), [k for k, _ in Pairs({"q": 1})])
it = iter([1, 2, 3])
print(list(zip(it, it)), list(it))
