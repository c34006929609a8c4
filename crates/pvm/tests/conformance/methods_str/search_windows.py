# Windowed find/rfind/count/index/rindex/startswith/endswith on str (ASCII and non-ASCII, past
# the offset-mark stride), bytes and bytearray, with every kind of start/end, and their errors.
cases = []
S = 'héllo wörld héllo ' * 5 + 'abc'
for s in ['hello world', '', 'aaa', S, 'ünï', 'x' * 40 + 'é' * 40 + 'x' * 40]:
    for sub in ['', 'o', 'l', 'lo', 'é', 'ö', 'xé', 'éx', 'zz', 'héllo', 'a']:
        for args in [(), (1,), (-3,), (2, 5), (5, 2), (0, -1), (100,), (-100, 100), (None, 3), (3, None), (len(s),), (len(s)+1,), (40, 80), (33, 70)]:
            row = []
            for m in ['find', 'rfind', 'count', 'startswith', 'endswith', 'index', 'rindex']:
                try:
                    row.append(getattr(s, m)(sub, *args))
                except ValueError as e:
                    row.append(str(e))
            b = s.encode()
            bsub = sub.encode()
            for bb in [b, bytearray(b)]:
                for m in ['find', 'rfind', 'count', 'startswith', 'endswith', 'index', 'rindex']:
                    try:
                        row.append(getattr(bb, m)(bsub, *args))
                    except ValueError as e:
                        row.append(str(e))
            print(row)
print('abc'.startswith(('x', 'a')), 'abc'.endswith(('x', 'bc'), 1), b'abc'.startswith((b'x', bytearray(b'a'))))
print(b'abc'.find(98), b'abc'.count(97), bytearray(b'abcb').rindex(98), b'abc'.find(True))
class I:
    def __index__(self): return 1
print('abcabc'.find('a', I()), b'abcabc'.find(b'a', I()), 'abc'.find('c', 2**70), 'abc'.find('', -2**70), 'abc'.count('', 2**70))
for f in [lambda: b'abc'.find('a'), lambda: b'abc'.find([1]), lambda: b'abc'.find(300), lambda: b'abc'.startswith('a'), lambda: b'abc'.startswith(97), lambda: 'abc'.find('a', 'x'), lambda: b'abc'.find(b'a', 1.5), lambda: 'abc'.startswith('a', 'x'), lambda: 'abc'.startswith(1), lambda: 'abc'.startswith(('x', 1)), lambda: b'abc'.startswith((1,)), lambda: b'abc'.startswith((b'x',1)),  lambda: 'abc'.endswith(['a']), lambda: b'abc'.endswith([b'a']), lambda: 'abc'.find(1), lambda: 'abc'.find(None), lambda: b'abc'.index(b'x'), lambda: 'abc'.rindex('x', 5), lambda: bytearray(b'abc').count('a'), lambda: bytearray(b'abc').find(-1)]:
    try: print(repr(f()))
    except Exception as e: print(type(e).__name__, e)
