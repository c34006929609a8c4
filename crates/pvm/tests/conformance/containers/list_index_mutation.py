"""An __index__ that empties the list while an item or slice of it is being set or deleted: the index
is resolved first, then the current length applies (as CPython)."""
a = list(range(10))
class X:
    def __index__(self):
        a.clear()
        return 3
for stmt in ["del a[X()]", "a[X()] = 1", "del a[X():]", "del a[:X()]", "a[X():5] = [7]", "del a[::X()]"]:
    a[:] = range(10)
    try:
        if stmt == "del a[X()]":
            del a[X()]
        elif stmt == "a[X()] = 1":
            a[X()] = 1
        elif stmt == "del a[X():]":
            del a[X():]
        elif stmt == "del a[:X()]":
            del a[:X()]
        elif stmt == "a[X():5] = [7]":
            a[X():5] = [7]
        else:
            del a[::X()]
        print(stmt, a)
    except IndexError as e:
        print(stmt, "IndexError", e)
b = bytearray(b"abcdef")
