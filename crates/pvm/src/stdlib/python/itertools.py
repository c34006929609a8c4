"""itertools for the PVM: iterator building blocks.

Covers: count, cycle, repeat, accumulate (func=, initial=), chain and chain.from_iterable,
compress, dropwhile, takewhile, filterfalse, groupby, islice (CPython's consumption pattern),
starmap, tee, zip_longest (fillvalue=), product (repeat=), permutations, combinations,
combinations_with_replacement, pairwise, batched is NOT included (3.12).

Each tool is a small class, so type names, isinstance checks and the eager argument errors
("'int' object is not iterable", "r must be non-negative", ...) match CPython's. repr is
provided for count and repeat as in CPython. Does not: support pickling/__reduce__/__setstate__,
or __length_hint__ beyond repeat. Written for the PVM from the documented behaviour; builtins
only.
"""


class _Iter:
    """Shared protocol: subclasses set self._it to an iterator (usually a generator)."""

    __slots__ = ('_it',)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)


def _is_number(x):
    t = type(x)
    return (isinstance(x, (int, float, complex)) or hasattr(t, '__index__')
            or hasattr(t, '__float__') or hasattr(t, '__int__'))


class count(_Iter):
    """count(start=0, step=1) -> start, start+step, start+2*step, ..."""

    __slots__ = ('_n', '_step')

    def __init__(self, start=0, step=1):
        if not _is_number(start) or not _is_number(step):
            raise TypeError("a number is required")
        self._n = start
        self._step = step

    def __next__(self):
        n = self._n
        self._n = n + self._step
        return n

    def __repr__(self):
        if type(self._step) is int and self._step == 1:
            return f"{type(self).__name__}({self._n!r})"
        return f"{type(self).__name__}({self._n!r}, {self._step!r})"


class cycle(_Iter):
    """Repeat the elements of an iterable forever (saving a copy on the first pass)."""

    __slots__ = ()

    def __init__(self, iterable):
        self._it = self._gen(iter(iterable))

    @staticmethod
    def _gen(it):
        saved = []
        for element in it:
            yield element
            saved.append(element)
        while saved:
            for element in saved:
                yield element


class repeat(_Iter):
    """repeat(object [,times]): the object, endlessly or `times` times."""

    __slots__ = ('_obj', '_left')

    def __init__(self, object, times=None):
        self._obj = object
        if times is None:
            self._left = None
        else:
            if not isinstance(times, int):
                raise TypeError(
                    f"'{type(times).__name__}' object cannot be interpreted as an integer")
            self._left = times if times > 0 else 0

    def __next__(self):
        if self._left is None:
            return self._obj
        if self._left <= 0:
            raise StopIteration
        self._left -= 1
        return self._obj

    def __length_hint__(self):
        if self._left is None:
            raise TypeError("len() of unsized object")
        return self._left

    def __repr__(self):
        if self._left is None:
            return f"{type(self).__name__}({self._obj!r})"
        return f"{type(self).__name__}({self._obj!r}, {self._left})"


def _add(a, b):
    return a + b


class accumulate(_Iter):
    """Running totals (or running results of a two-argument func)."""

    __slots__ = ()

    def __init__(self, iterable, func=None, *, initial=None):
        self._it = self._gen(iter(iterable), _add if func is None else func, initial)

    @staticmethod
    def _gen(it, func, total):
        if total is None:
            for total in it:
                break
            else:
                return
        yield total
        for element in it:
            total = func(total, element)
            yield total


class chain(_Iter):
    """chain(*iterables): the elements of each iterable in turn (each iter()'d lazily)."""

    __slots__ = ()

    def __init__(self, *iterables):
        self._it = self._gen(iter(iterables))

    @staticmethod
    def _gen(sources):
        for source in sources:
            yield from source

    @classmethod
    def from_iterable(cls, iterable):
        self = cls.__new__(cls)
        self._it = cls._gen(iter(iterable))
        return self


class compress(_Iter):
    """Elements of data whose matching selector is true."""

    __slots__ = ()

    def __init__(self, data, selectors):
        self._it = (d for d, s in zip(iter(data), iter(selectors)) if s)


class dropwhile(_Iter):
    """Skip elements while predicate is true, then yield everything."""

    __slots__ = ()

    def __init__(self, predicate, iterable):
        self._it = self._gen(predicate, iter(iterable))

    @staticmethod
    def _gen(predicate, it):
        for x in it:
            if not predicate(x):
                yield x
                break
        yield from it


class takewhile(_Iter):
    """Yield elements while predicate is true; stop at the first false one (consumed)."""

    __slots__ = ()

    def __init__(self, predicate, iterable):
        self._it = self._gen(predicate, iter(iterable))

    @staticmethod
    def _gen(predicate, it):
        for x in it:
            if not predicate(x):
                return
            yield x


class filterfalse(_Iter):
    """Elements for which predicate (or truth, if None) is false."""

    __slots__ = ()

    def __init__(self, function, iterable):
        it = iter(iterable)
        if function is None:
            self._it = (x for x in it if not x)
        else:
            self._it = (x for x in it if not function(x))


class starmap(_Iter):
    """function(*args) for each args tuple of the iterable."""

    __slots__ = ()

    def __init__(self, function, iterable):
        self._it = (function(*args) for args in iter(iterable))


class islice(_Iter):
    """islice(iterable, stop) / islice(iterable, start, stop[, step])."""

    __slots__ = ('_src', '_next', '_stop', '_step', '_cnt')

    def __init__(self, iterable, *args):
        if len(args) == 1:
            start, stop, step = None, args[0], None
        elif 2 <= len(args) <= 3:
            start, stop = args[0], args[1]
            step = args[2] if len(args) == 3 else None
        else:
            raise TypeError(f"islice expected at most 4 arguments, got {len(args) + 1}"
                            if args else "islice expected at least 2 arguments, got 1")
        if len(args) == 1:
            stop = self._index(stop, "Stop argument for islice() must be None or an "
                                     "integer: 0 <= x <= sys.maxsize.")
        else:
            msg = "Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize."
            start = self._index(start, msg)
            stop = self._index(stop, msg)
        if step is not None:
            if not isinstance(step, int) or not 1 <= step <= 0x7FFFFFFFFFFFFFFF:
                raise ValueError("Step for islice() must be a positive integer or None.")
        self._src = iter(iterable)
        self._next = start or 0
        self._stop = stop
        self._step = step or 1
        self._cnt = 0

    @staticmethod
    def _index(value, msg):
        if value is None:
            return None
        # CPython reads the bound as a C Py_ssize_t: 0 <= x <= sys.maxsize (2**63 - 1).
        if isinstance(value, int) and 0 <= value <= 0x7FFFFFFFFFFFFFFF:
            return value
        raise ValueError(msg)

    def __next__(self):
        src = self._src
        if src is None:
            raise StopIteration
        stop = self._stop
        # Skip (consuming) up to the next wanted position, exactly as CPython does.
        while self._cnt < self._next:
            try:
                next(src)
            except StopIteration:
                self._src = None
                raise
            self._cnt += 1
        if stop is not None and self._cnt >= stop:
            self._src = None
            raise StopIteration
        try:
            item = next(src)
        except StopIteration:
            self._src = None
            raise
        self._cnt += 1
        self._next += self._step
        if stop is not None and self._next > stop:
            self._next = stop
        return item


class _TeeLink:
    """One cell of the singly linked buffer shared by tee iterators."""

    __slots__ = ('value', 'next')

    def __init__(self):
        self.value = None
        self.next = None


class _tee:
    """One of the iterators returned by tee(); copyable via __copy__."""

    __slots__ = ('_src', '_link')

    def __init__(self, src, link):
        self._src = src    # one-element list holding the shared source iterator
        self._link = link  # the cell this iterator reads next

    def __iter__(self):
        return self

    def __next__(self):
        link = self._link
        if link.next is None:
            # This iterator is at the head: pull a new value and append a fresh cell.
            link.value = next(self._src[0])
            link.next = _TeeLink()
        self._link = link.next
        return link.value

    def __copy__(self):
        return _tee(self._src, self._link)


def tee(iterable, n=2):
    """Return n independent iterators over one iterable."""
    if not isinstance(n, int):
        raise TypeError(f"'{type(n).__name__}' object cannot be interpreted as an integer")
    if n < 0:
        raise ValueError("n must be >= 0")
    if n == 0:
        return ()
    it = iter(iterable)
    if hasattr(it, '__copy__'):
        # Like CPython: a copyable iterator (e.g. another tee) is itself the first result.
        first = it
    else:
        first = _tee([it], _TeeLink())
    return tuple([first] + [first.__copy__() for _ in range(n - 1)])


class zip_longest(_Iter):
    """Like zip, but runs until the longest input ends, padding with fillvalue."""

    __slots__ = ()

    def __init__(self, *iterables, fillvalue=None):
        self._it = self._gen([iter(x) for x in iterables], fillvalue)

    @staticmethod
    def _gen(iterators, fillvalue):
        active = len(iterators)
        if not active:
            return
        while True:
            values = []
            for i, it in enumerate(iterators):
                try:
                    value = next(it)
                except StopIteration:
                    active -= 1
                    if not active:
                        return
                    iterators[i] = repeat(fillvalue)
                    value = fillvalue
                values.append(value)
            yield tuple(values)


class pairwise(_Iter):
    """Successive overlapping pairs: s0,s1 ; s1,s2 ; ..."""

    __slots__ = ()

    def __init__(self, iterable):
        self._it = self._gen(iter(iterable))

    @staticmethod
    def _gen(it):
        for a in it:
            break
        else:
            return
        for b in it:
            yield a, b
            a = b


_NULL = object()  # "no value yet" marker (None is a legitimate key/value)


class _GroupState:
    """State shared by a groupby object and its group iterators."""

    __slots__ = ('it', 'keyfunc', 'tgtkey', 'currkey', 'currvalue', 'current')

    def step(self):
        # Read one element and its key; StopIteration at the end propagates.
        value = next(self.it)
        key = value if self.keyfunc is None else self.keyfunc(value)
        self.currvalue = value
        self.currkey = key


class _grouper:
    """The iterator over one run of a groupby; dead once the groupby has moved on."""

    __slots__ = ('_state', '_token', '_tgtkey')

    def __init__(self, state, token, tgtkey):
        self._state = state
        self._token = token
        self._tgtkey = tgtkey

    def __iter__(self):
        return self

    def __next__(self):
        st = self._state
        if st.current is not self._token:
            raise StopIteration
        if st.currvalue is _NULL:
            st.step()
        if not self._tgtkey == st.currkey:
            raise StopIteration
        value = st.currvalue
        st.currvalue = _NULL
        return value


class groupby(_Iter):
    """Consecutive keys and groups: (key, iterator over the run with that key)."""

    __slots__ = ('_state',)

    def __init__(self, iterable, key=None):
        st = _GroupState()
        st.it = iter(iterable)
        st.keyfunc = key
        st.tgtkey = st.currkey = st.currvalue = _NULL
        st.current = None
        self._state = st

    def __next__(self):
        st = self._state
        st.current = token = object()  # a fresh token invalidates the previous group
        # Skip whatever is left of the current run.
        while True:
            if st.currkey is _NULL:
                pass
            elif st.tgtkey is _NULL:
                break
            elif not st.tgtkey == st.currkey:
                break
            st.step()
        st.tgtkey = st.currkey
        return st.currkey, _grouper(st, token, st.tgtkey)


class product(_Iter):
    """Cartesian product of the input iterables (each pool read once, up front)."""

    __slots__ = ()

    def __init__(self, *iterables, repeat=1):
        if not isinstance(repeat, int):
            raise TypeError(
                f"'{type(repeat).__name__}' object cannot be interpreted as an integer")
        if repeat < 0:
            raise ValueError("repeat argument cannot be negative")
        pools = [tuple(pool) for pool in iterables] * repeat
        self._it = self._gen(pools)

    @staticmethod
    def _gen(pools):
        result = [()]
        for pool in pools:
            result = [prefix + (y,) for prefix in result for y in pool]
        for prod in result:
            yield prod


def _check_r(r):
    if not isinstance(r, int):
        raise TypeError("Expected int as r")
    if r < 0:
        raise ValueError("r must be non-negative")


class permutations(_Iter):
    """r-length permutations in lexicographic order of input positions."""

    __slots__ = ()

    def __init__(self, iterable, r=None):
        pool = tuple(iterable)
        n = len(pool)
        if r is None:
            r = n
        _check_r(r)
        self._it = self._gen(pool, n, r)

    @staticmethod
    def _gen(pool, n, r):
        if r > n:
            return
        # Depth-first over unused positions, in increasing order: lexicographic output.
        used = [False] * n
        chosen = []

        def rec():
            if len(chosen) == r:
                yield tuple(pool[i] for i in chosen)
                return
            for i in range(n):
                if not used[i]:
                    used[i] = True
                    chosen.append(i)
                    yield from rec()
                    chosen.pop()
                    used[i] = False

        yield from rec()


class combinations(_Iter):
    """r-length subsequences of the input, in input order."""

    __slots__ = ()

    def __init__(self, iterable, r):
        pool = tuple(iterable)
        _check_r(r)
        self._it = self._gen(pool, r)

    @staticmethod
    def _gen(pool, r):
        n = len(pool)
        if r > n:
            return
        idx = list(range(r))
        yield tuple(pool[i] for i in idx)
        while True:
            # Find the rightmost index that can still move right.
            i = r - 1
            while i >= 0 and idx[i] == i + n - r:
                i -= 1
            if i < 0:
                return
            idx[i] += 1
            for j in range(i + 1, r):
                idx[j] = idx[j - 1] + 1
            yield tuple(pool[k] for k in idx)


class combinations_with_replacement(_Iter):
    """r-length subsequences allowing each element to repeat."""

    __slots__ = ()

    def __init__(self, iterable, r):
        pool = tuple(iterable)
        _check_r(r)
        self._it = self._gen(pool, r)

    @staticmethod
    def _gen(pool, r):
        n = len(pool)
        if not n and r:
            return
        idx = [0] * r
        yield tuple(pool[i] for i in idx)
        while True:
            i = r - 1
            while i >= 0 and idx[i] == n - 1:
                i -= 1
            if i < 0:
                return
            v = idx[i] + 1
            for j in range(i, r):
                idx[j] = v
            yield tuple(pool[k] for k in idx)
