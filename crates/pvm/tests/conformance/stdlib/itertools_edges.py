# itertools edge cases: argument errors (CPython's exact messages), empty inputs, r > n,
# exceptions raised by an input mid-way, re-entrant callbacks, tee and groupby sharing,
# subclassing, reprs and laziness.
import itertools as it


def t(label, f):
    try:
        r = f()
        if hasattr(r, "__next__"):
            r = (type(r).__name__, list(it.islice(r, 6)))
        print(label, r)
    except Exception as e:
        print(label, type(e).__name__, e)


t("count str", lambda: it.count("a"))
t("count step str", lambda: it.count(1, "a"))
t("count float", lambda: it.count(1.5, 2))
t("count kw", lambda: it.count(start=3, step=2))
t("count 3 args", lambda: it.count(1, 2, 3))
t("count bad kw", lambda: it.count(x=1))
t("count complex", lambda: it.count(1j))
t("count big", lambda: it.count(2**64 - 2))
t("repeat float", lambda: it.repeat(1, 1.5))
t("repeat negative", lambda: it.repeat(1, -3))
t("repeat kw", lambda: it.repeat(1, times=2))
t("repeat none", lambda: it.repeat())
t("repeat big", lambda: it.repeat(1, 2**70))
t("cycle none", lambda: it.cycle())
t("cycle int", lambda: it.cycle(5))
t("cycle two", lambda: it.cycle([1], [2]))
t("cycle empty", lambda: it.cycle([]))
t("cycle", lambda: it.cycle("ab"))
t("chain ints", lambda: it.chain(1, 2))
t("chain kw", lambda: it.chain(x=1))
t("chain empty", lambda: it.chain())
t("chain empties", lambda: it.chain([], (), "", [1]))
t("from_iterable int", lambda: it.chain.from_iterable(5))
t("from_iterable", lambda: it.chain.from_iterable(["ab", [1], ()]))
t("compress", lambda: it.compress(data=[1, 2, 3], selectors=[0, 1]))
t("compress missing", lambda: it.compress([1]))
t("compress int", lambda: it.compress([1], 5))
t("dropwhile none", lambda: it.dropwhile(None, [1]))
t("dropwhile one arg", lambda: it.dropwhile(len))
t("dropwhile kw", lambda: it.dropwhile(pred=len, iterable=[]))
t("dropwhile", lambda: it.dropwhile(lambda x: x < 3, [1, 2, 3, 1, 5]))
t("takewhile int", lambda: it.takewhile(len, 5))
t("takewhile", lambda: it.takewhile(lambda x: x < 3, [1, 2, 3, 1, 5]))
t("filterfalse none", lambda: it.filterfalse(None, [0, 1, "", "a", None]))
t("filterfalse one", lambda: it.filterfalse(None))
t("starmap", lambda: it.starmap(pow, [(2, 3), [3, 2]]))
t("starmap int", lambda: it.starmap(pow, [5]))
t("islice float", lambda: it.islice([1, 2, 3], 1.5))
t("islice negative", lambda: it.islice([1, 2, 3], -1))
t("islice start neg", lambda: it.islice([1, 2, 3], -1, 2))
t("islice step 0", lambda: it.islice([1, 2, 3], 0, 2, 0))
t("islice one", lambda: it.islice([1, 2, 3]))
t("islice five", lambda: it.islice([1, 2, 3], 1, 2, 3, 4))
t("islice kw", lambda: it.islice([1], stop=1))
t("islice none", lambda: it.islice(range(10), None))
t("islice steps", lambda: it.islice(range(20), 2, None, 5))
t("islice past end", lambda: it.islice(range(3), 5, 9))
t("pairwise int", lambda: it.pairwise(5))
t("pairwise none", lambda: it.pairwise())
t("pairwise one", lambda: it.pairwise([1]))
t("pairwise", lambda: it.pairwise("abcd"))
t("zip_longest int", lambda: it.zip_longest([1], 5))
t("zip_longest fill", lambda: it.zip_longest([1], [2, 3], fillvalue="x"))
t("zip_longest kw", lambda: it.zip_longest([1], x=1))
t("zip_longest none", lambda: it.zip_longest())
t("groupby int", lambda: it.groupby(5))
t("groupby none", lambda: it.groupby())
t("groupby bad kw", lambda: it.groupby([1], keyfunc=len))
t("accumulate int", lambda: it.accumulate(5))
t("accumulate initial", lambda: it.accumulate([1, 2], None, initial=5))
t("accumulate initial empty", lambda: it.accumulate([], initial=5))
t("accumulate func", lambda: it.accumulate([3, 1, 4, 1, 5], max))
t("accumulate bad kw", lambda: it.accumulate([1, 2], x=1))
t("accumulate none", lambda: it.accumulate())
t("accumulate mixed", lambda: it.accumulate([1, "a"]))
t("tee int", lambda: it.tee(5))
t("tee negative", lambda: it.tee([1], -1))
t("tee float", lambda: it.tee([1], 1.5))
t("tee kw", lambda: it.tee([1], n=2))
t("tee none", lambda: it.tee())
t("tee zero", lambda: it.tee([1], 0))
t("product float", lambda: it.product([1], repeat=1.5))
t("product negative", lambda: it.product([1], repeat=-1))
t("product kw", lambda: it.product([1], x=1))
t("product int", lambda: it.product(5))
t("product none", lambda: it.product())
t("product repeat 0", lambda: it.product([1], [2], repeat=0))
t("product empty pool", lambda: it.product([1, 2], [], [3]))
t("product repeat", lambda: it.product("ab", repeat=2))
t("product huge repeat", lambda: it.product(repeat=10**18))
t("permutations none", lambda: it.permutations())
t("permutations 3 args", lambda: it.permutations([1], 2, 3))
t("permutations float", lambda: it.permutations([1, 2], 1.5))
t("permutations negative", lambda: it.permutations([1, 2], -1))
t("permutations r > n", lambda: it.permutations([1, 2], 3))
t("permutations r = 0", lambda: it.permutations([1, 2], 0))
t("permutations empty", lambda: it.permutations([]))
t("permutations kw", lambda: it.permutations(iterable=[1, 2, 3], r=2))
t("combinations float", lambda: it.combinations([1, 2], 1.5))
t("combinations negative", lambda: it.combinations([1, 2], -1))
t("combinations missing", lambda: it.combinations([1, 2]))
t("combinations int", lambda: it.combinations(5, 1))
t("combinations r > n", lambda: it.combinations([1, 2], 3))
t("combinations r = 0", lambda: it.combinations([1, 2], 0))
t("combinations both", lambda: it.combinations([1], 1, r=2))
t("cwr float", lambda: it.combinations_with_replacement([1, 2], 1.5))
t("cwr negative", lambda: it.combinations_with_replacement([1, 2], -1))
t("cwr empty", lambda: it.combinations_with_replacement([], 2))
t("cwr empty r0", lambda: it.combinations_with_replacement([], 0))
t("cwr r > n", lambda: it.combinations_with_replacement("ab", 3))
print(len(list(it.permutations(range(6)))), len(list(it.combinations(range(10), 4))))
print(list(it.permutations("abcd", 2)) == [(a, b) for a in "abcd" for b in "abcd" if a != b])
print(sum(1 for _ in it.combinations_with_replacement(range(5), 3)))


class Boom(Exception):
    pass


def flaky(n):
    for i in range(n):
        yield i
    raise Boom("input failed")


for name, make in [
    ("chain", lambda: it.chain(flaky(2), [9])),
    ("islice", lambda: it.islice(flaky(3), 1, None)),
    ("pairwise", lambda: it.pairwise(flaky(3))),
    ("zip_longest", lambda: it.zip_longest(flaky(2), [1, 2, 3, 4])),
    ("accumulate", lambda: it.accumulate(flaky(3))),
    ("cycle", lambda: it.cycle(flaky(2))),
    ("product", lambda: it.product(flaky(2))),
    ("groupby", lambda: it.groupby(flaky(3))),
    ("tee", lambda: it.tee(flaky(2))[0]),
    ("compress", lambda: it.compress(flaky(5), [1, 1, 1])),
]:
    out = []
    try:
        g = make()
        for x in g:
            out.append(x if name != "groupby" else x[0])
    except Boom as e:
        print(name, out, "Boom:", e)
    else:
        print(name, out, "no error")

# An iterator that failed mid-way can be resumed when its input can.
class Flaky:
    def __init__(self):
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.i += 1
        if self.i == 3:
            raise Boom("once")
        if self.i > 6:
            raise StopIteration
        return self.i


p = it.pairwise(Flaky())
got = []
for _ in range(6):
    try:
        got.append(next(p))
    except Boom:
        got.append("boom")
    except StopIteration:
        got.append("stop")
print(got)

# Re-entrancy: a callback advancing the iterator that called it.
holder = {}


def pred(x):
    if x == 2:
        holder["seen"] = next(holder["it"], "end")
    return x < 4


holder["it"] = it.takewhile(pred, iter(range(10)))
print(list(holder["it"]), holder["seen"])
holder["it"] = it.dropwhile(pred, iter(range(10)))
print(list(holder["it"]), holder["seen"])


def key(x):
    if x == 3:
        holder["k"] = next(holder["g"], None)
    return x // 2


holder["g"] = it.groupby(range(8), key)
print([(k, list(g)) for k, g in holder["g"]], holder["k"][0])

a, b = it.tee(iter(range(5)))


class Reenter:
    def __init__(self):
        self.n = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.n += 1
        if self.n == 2:
            return next(holder["tee"])
        if self.n > 4:
            raise StopIteration
        return self.n


holder["tee"] = it.tee(Reenter())[0]
try:
    print(list(holder["tee"]))
except RuntimeError as e:
    print("RuntimeError:", e)

# tee: independent cursors over one buffer; copies; tee of a tee.
x, y, z = it.tee("abcde", 3)
print(next(x), next(x), next(y), list(z), list(x), list(y))
x, y = it.tee(range(4))
import copy
w = copy.copy(x)
print(next(x), next(w), type(x).__name__, type(w).__name__, list(w), list(x), list(y))
x, y = it.tee(range(3))
x2, x3 = it.tee(x)
print(x2 is x, list(x3), list(x), list(y))

# groupby: a group dies when the groupby moves on.
gb = it.groupby("aaabbc")
k1, g1 = next(gb)
k2, g2 = next(gb)
print(k1, list(g1), k2, next(g2), [k for k, _ in gb], list(g2))
print([(k, list(g)) for k, g in it.groupby([1, 1, 2, 2, 2, 1], key=lambda v: v % 2)])
print([k for k, _ in it.groupby([])], [(k, list(g)) for k, g in it.groupby([None, None, 0])])

# Subclasses, types, reprs, laziness.
class MyCount(it.count):
    def __init__(self, *args):
        self.args = args


c = MyCount(5, 2)
print(next(c), next(c), c.args, type(c).__name__, isinstance(c, it.count), repr(c))
print(repr(it.count(1.5, 2)), repr(it.count(2, 1.0)), repr(it.count(2**70)), repr(it.count(0, 1)))
print(repr(it.repeat("a", 3)), repr(it.repeat("a")), it.repeat(1, 5).__length_hint__())
r = it.repeat(1, 2)
next(r)
print(repr(r), list(r), repr(r))
print(it.count.__module__, it.count.__name__, type(it.product), iter(c) is c)
print(type(next(it.groupby([1]))[1]).__name__, type(it.tee([1])[0]).__name__)
try:
    it.repeat(1).__length_hint__()
except TypeError as e:
    print("TypeError:", e)
seen = []


def noisy():
    for i in range(100):
        seen.append(i)
        yield i


ch = it.chain(noisy(), noisy())
print(next(ch), next(ch), seen)
sl = it.islice(noisy(), 2, 5)
print(list(sl), len(seen))
print(list(it.islice(it.count(), 0, 20, 7)), list(it.zip_longest("ab", it.repeat(0, 3))))
