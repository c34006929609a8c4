for s in [slice(None), slice(1, 10, 2), slice(None, None, -1), slice(-3, None), slice(-100, 100), slice(10, -10, -3), slice(None, None, 5), slice(3, 1), slice(-1, -100, -1), slice(0, 10**30), slice(-10**30, None, -2)]:
    print(s, s.indices(5), s.indices(0), s.indices(17), len(range(*s.indices(7))))
for bad in [(-1,), (), (1, 2), ("a",), (2.0,)]:
    try: print(slice(1).indices(*bad))
    except Exception as e: print(type(e).__name__, e)
try: slice(0, 1, 0).indices(3)
except Exception as e: print(type(e).__name__, e)
