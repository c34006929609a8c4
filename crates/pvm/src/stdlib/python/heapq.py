"""heapq for the PVM: binary min-heaps on plain lists.

Covers: heappush, heappop, heapify, heapreplace, heappushpop, nlargest, nsmallest (key=),
merge (key=, reverse=). The five heap operations are native (`_heapq`,
src/native/heapq.rs), as CPython's are C: they sift with CPython's algorithm (push sifts
the new item toward the root; pop moves the smaller child up to a leaf and then sifts the
displaced item back), so list layouts after every operation are identical to CPython's and
only `<` is ever used for comparisons. nlargest/nsmallest return exactly
sorted(iterable, key=key, reverse=...)[:n] (stable).

Does not: provide the private max-heap helpers (_heapify_max, ...). Written for the PVM from
the documented behaviour; builtins only.
"""

__all__ = ['heappush', 'heappop', 'heapify', 'heapreplace', 'merge', 'nlargest',
           'nsmallest', 'heappushpop']


from _heapq import heapify, heappop, heappush, heappushpop, heapreplace


class _Entry:
    """A merge() heap entry ordered by (key, source order); values are never compared."""

    __slots__ = ('key', 'order', 'value', 'it', 'reverse')

    def __lt__(self, other):
        if self.key is other.key or self.key == other.key:
            return self.order < other.order
        return other.key < self.key if self.reverse else self.key < other.key


def merge(*iterables, key=None, reverse=False):
    """Merge sorted inputs into a single sorted iterator (stable across inputs)."""
    heap = []
    for order, iterable in enumerate(iterables):
        it = iter(iterable)
        for value in it:
            e = _Entry()
            e.key = value if key is None else key(value)
            e.order, e.value, e.it, e.reverse = order, value, it, reverse
            heap.append(e)
            break
    heapify(heap)
    while heap:
        e = heap[0]
        yield e.value
        for value in e.it:
            e.value = value
            e.key = value if key is None else key(value)
            heapreplace(heap, e)
            break
        else:
            heappop(heap)


def nsmallest(n, iterable, key=None):
    """The n smallest elements: sorted(iterable, key=key)[:n]."""
    if n <= 0:
        return []
    return sorted(iterable, key=key)[:n]


def nlargest(n, iterable, key=None):
    """The n largest elements: sorted(iterable, key=key, reverse=True)[:n]."""
    if n <= 0:
        return []
    return sorted(iterable, key=key, reverse=True)[:n]
