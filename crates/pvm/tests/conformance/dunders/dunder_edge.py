"""Dunder protocols: __bool__/__len__ fallback, __contains__ fallback to __iter__/__getitem__,
__index__ in slicing and range, __call__, reflected ops with subclass priority, __iadd__ fallback,
__missing__, __reversed__, __format__, __hash__ inheritance, __eq__ NotImplemented fallback."""


class L:
    def __len__(self):
        return 0


class B:
    def __bool__(self):
        return False

    def __len__(self):
        return 5


print(bool(L()), bool(B()), len(B()))


class It:
    def __iter__(self):
        return iter([1, 2, 3])


class Gi:
    def __getitem__(self, i):
        if i > 3:
            raise IndexError
        return i * 10


print(2 in It(), 5 in It(), 20 in Gi(), list(Gi()), list(reversed([1, 2])))


class Idx:
    def __index__(self):
        return 2


print([0, 1, 2, 3][Idx()], [0, 1, 2, 3][Idx():], list(range(Idx())), hex(Idx()), "ab" * Idx())


class Num:
    def __init__(self, v):
        self.v = v

    def __add__(self, o):
        return Num(self.v + (o.v if isinstance(o, Num) else o))

    def __radd__(self, o):
        return Num(o + self.v)

    def __repr__(self):
        return f"Num({self.v})"


class SubNum(Num):
    def __radd__(self, o):
        return "sub radd wins"


print(Num(1) + 2, 3 + Num(1), Num(1) + SubNum(2), sum([Num(1), Num(2)]))
n = Num(1)
n += 5
print(n)


class D(dict):
    def __missing__(self, key):
        return f"missing {key}"


d = D(a=1)
print(d["a"], d["zz"], d.get("zz"))


class Rev:
    def __reversed__(self):
        return iter("cba")

    def __len__(self):
        return 3

    def __getitem__(self, i):
        return "abc"[i]


print(list(reversed(Rev())))


class F:
    def __format__(self, spec):
        return f"F<{spec}>"


print(format(F(), "x"), f"{F():>10}", "{:abc}".format(F()))


class NE:
    def __eq__(self, other):
        return NotImplemented


print(NE() == NE(), NE() != 1, [NE()].count(1))


class Callable:
    def __call__(self, *a, **k):
        return a, k


print(Callable()(1, x=2), callable(Callable()), callable(Callable))


class Ctx:
    def __enter__(self):
        return "entered"

    def __exit__(self, *a):
        return False


with Ctx() as c:
    print(c)


class Cmp:
    def __init__(self, v):
        self.v = v

    def __eq__(self, o):
        return self.v == o.v

    __hash__ = object.__hash__


print(len({Cmp(1), Cmp(1)}), Cmp(1) == Cmp(1))


class Neg:
    def __neg__(self):
        return "neg"

    def __pos__(self):
        return "pos"

    def __invert__(self):
        return "inv"

    def __abs__(self):
        return "abs"


print(-Neg(), +Neg(), ~Neg(), abs(Neg()))
for f in [lambda: len(object()), lambda: object() + 1, lambda: iter(5), lambda: -object(), lambda: object()[0]]:
    try:
        f()
    except TypeError as e:
        print("TypeError", e)
