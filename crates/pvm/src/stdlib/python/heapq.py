"""heapq for the PVM: binary min-heaps on plain lists.

Covers: heappush, heappop, heapify, heapreplace, heappushpop, nlargest, nsmallest (key=),
merge (key=, reverse=). The sift procedures follow the same algorithm as CPython (push sifts
the new item toward the root; pop moves the smaller child up to a leaf and then sifts the
displaced item back), so list layouts after every operation are identical to CPython's and
only `<` is ever used for comparisons. nlargest/nsmallest return exactly
sorted(iterable, key=key, reverse=...)[:n] (stable).

Does not: provide the private max-heap helpers (_heapify_max, ...). Written for the PVM from
the documented behaviour; builtins only.
"""

__all__ = ['heappush', 'heappop', 'heapify', 'heapreplace', 'merge', 'nlargest',
           'nsmallest', 'heappushpop']


def _check(heap, what):
    if not isinstance(heap, list):
        raise TypeError(f"{what} must be list, not {type(heap).__name__}")


def _siftdown(heap, startpos, pos):
    # Move heap[pos] up toward startpos while it is smaller than its parent.
    newitem = heap[pos]
    while pos > startpos:
        parentpos = (pos - 1) >> 1
        parent = heap[parentpos]
        if newitem < parent:
            heap[pos] = parent
            pos = parentpos
            continue
        break
    heap[pos] = newitem


def _siftup(heap, pos):
    # Bottom-up: walk the smaller child up to a leaf, then place the item with _siftdown.
    endpos = len(heap)
    startpos = pos
    newitem = heap[pos]
    childpos = 2 * pos + 1
    while childpos < endpos:
        rightpos = childpos + 1
        if rightpos < endpos and not heap[childpos] < heap[rightpos]:
            childpos = rightpos
        heap[pos] = heap[childpos]
        pos = childpos
        childpos = 2 * pos + 1
    heap[pos] = newitem
    _siftdown(heap, startpos, pos)


def heappush(heap, item):
    """Push item onto heap, maintaining the heap invariant."""
    _check(heap, "heappush() argument 1")
    heap.append(item)
    _siftdown(heap, 0, len(heap) - 1)


def heappop(heap):
    """Pop the smallest item off the heap, maintaining the heap invariant."""
    _check(heap, "heappop() argument")
    if not heap:
        raise IndexError("index out of range")
    lastelt = heap.pop()
    if heap:
        returnitem = heap[0]
        heap[0] = lastelt
        _siftup(heap, 0)
        return returnitem
    return lastelt


def heapreplace(heap, item):
    """Pop the smallest item, then push item (the heap size is unchanged)."""
    _check(heap, "heapreplace() argument 1")
    if not heap:
        raise IndexError("index out of range")
    returnitem = heap[0]
    heap[0] = item
    _siftup(heap, 0)
    return returnitem


def heappushpop(heap, item):
    """Push item, then pop and return the smallest item (faster than the two calls)."""
    _check(heap, "heappushpop() argument 1")
    if heap and heap[0] < item:
        item, heap[0] = heap[0], item
        _siftup(heap, 0)
    return item


def heapify(x):
    """Transform list x into a heap, in place, in linear time."""
    _check(x, "heapify() argument")
    for i in reversed(range(len(x) // 2)):
        _siftup(x, i)


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
