"""bisect for the PVM: binary search and insertion into sorted lists.

Covers: bisect_left, bisect_right (alias bisect), insort_left, insort_right (alias insort),
with lo=, hi= and key= (3.10+) exactly as CPython: key is applied to the list's elements
during the search (and to the inserted item by insort).

The binary search itself is native (`_bisect.search`, src/native/bisect.rs), as CPython's
is C; this module checks the arguments and inserts.

Does not: anything else (there is nothing else). Written for the PVM from the documented
behaviour.
"""

from _bisect import search as _search


_SSIZE_MAX = 0x7FFFFFFFFFFFFFFF


def _bounds(a, lo, hi):
    # CPython converts lo and hi to C Py_ssize_t first (lo as an argument, hi through
    # __index__), so a bound beyond sys.maxsize is an OverflowError, never a long search;
    # hi=-1 is its "not given" sentinel and means len(a).
    if not -_SSIZE_MAX - 1 <= lo <= _SSIZE_MAX:
        raise OverflowError('Python int too large to convert to C ssize_t')
    if lo < 0:
        raise ValueError('lo must be non-negative')
    if hi is None or hi == -1:
        hi = len(a)
    elif not -_SSIZE_MAX - 1 <= hi <= _SSIZE_MAX:
        raise OverflowError("cannot fit 'int' into an index-sized integer")
    return lo, hi


def bisect_right(a, x, lo=0, hi=None, *, key=None):
    """Index where x would be inserted after any equal entries of sorted a[lo:hi]."""
    lo, hi = _bounds(a, lo, hi)
    return _search(a, x, lo, hi, key, True)


def bisect_left(a, x, lo=0, hi=None, *, key=None):
    """Index where x would be inserted before any equal entries of sorted a[lo:hi]."""
    lo, hi = _bounds(a, lo, hi)
    return _search(a, x, lo, hi, key, False)


def insort_right(a, x, lo=0, hi=None, *, key=None):
    """Insert x into sorted a, after any equal entries."""
    lo = bisect_right(a, x if key is None else key(x), lo, hi, key=key)
    a.insert(lo, x)


def insort_left(a, x, lo=0, hi=None, *, key=None):
    """Insert x into sorted a, before any equal entries."""
    lo = bisect_left(a, x if key is None else key(x), lo, hi, key=key)
    a.insert(lo, x)


bisect = bisect_right
insort = insort_right
