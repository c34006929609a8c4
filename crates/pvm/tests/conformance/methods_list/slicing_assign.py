"""Slice assignment and deletion on lists and bytearrays: steps, negative steps, resizing, errors."""
l = list(range(10))
l[2:5] = ["a", "b"]; print(l)
l[:0] = [-1]; print(l)
l[len(l):] = [99]; print(l)
l[::3] = [0] * len(l[::3]); print(l)
l[::-2] = list("ABCDEF")[:len(l[::-2])]; print(l)
del l[::2]; print(l)
del l[-2:]; print(l)
del l[100:]; print(l)
l[1:1] = range(3); print(l)
l[5:2] = ["x"]; print(l)
l[-100:2] = []; print(l)
def attempt(label, fn):
    try:
        print(label, fn())
    except (TypeError, ValueError, IndexError) as e:
        print(label, type(e).__name__, e)
def setsl(obj, s, v):
    obj[s] = v
    return obj
def delsl(obj, s):
    del obj[s]
    return obj
attempt("ext size", lambda: setsl(list(range(6)), slice(None, None, 2), [1, 2]))
attempt("ext iter", lambda: setsl(list(range(4)), slice(None, None, 2), iter([7, 8])))
attempt("non-iterable", lambda: setsl([1, 2], slice(0, 1), 5))
attempt("step zero", lambda: setsl([1, 2], slice(None, None, 0), []))
attempt("del step zero", lambda: delsl([1, 2], slice(None, None, 0)))
attempt("del index", lambda: delsl([1, 2], 5))
attempt("self assign", lambda: setsl([1, 2, 3], slice(1, 2), [1, 2, 3]))
b = bytearray(b"0123456789")
b[::2] = b"abcde"; print(b)
b[1:3] = b""; print(b)
del b[::-3]; print(b)
b[2:2] = [65, 66]; print(b)
attempt("ba ext size", lambda: setsl(bytearray(b"abcd"), slice(None, None, 2), b"x"))
attempt("ba del", lambda: delsl(bytearray(b"ab"), 2))
s = slice(1, 10, 3)
print(s, s.start, s.stop, s.step, s.indices(5), slice(None).indices(3), slice(-1, None, -1).indices(4))
print(list(range(10))[s], "abcdefghij"[s], (0, 1, 2, 3, 4)[slice(None, None, -2)])
attempt("indices zero", lambda: slice(0, 1, 0).indices(3))
attempt("indices neg", lambda: slice(0, 1).indices(-1))
print(slice(1, 2) == slice(1, 2), slice(1, 2) == slice(1, 3), repr(slice(None, "a", [1])))
