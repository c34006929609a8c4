# Extended slices of a non-ASCII str (both directions, steps past the string, empty results).
s = 'héllo wörld ' * 5 + 'ü' * 40
for sl in [slice(None, None, -1), slice(None, None, 2), slice(3, 50, 3), slice(50, 3, -3), slice(-1, -80, -7), slice(100, 0, -1), slice(0, 100, 5), slice(5, 5, 2), slice(10, 2, 2), slice(-5, None, -2), slice(None, None, 1000), slice(None, None, -1000)]:
    print(repr(s[sl]))
