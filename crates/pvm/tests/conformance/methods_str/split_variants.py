# split/rsplit (separator, whitespace, maxsplit from both ends) and splitlines on str, bytes and
# bytearray, with Unicode vs ASCII whitespace and line breaks, keywords and errors.
S = ['', ' ', 'a b  c ', '  a\tb\nc\x1cd\x85e\u2028f\u3000g  ', 'a,b,,c,', ',', 'aaa', 'héllo wörld', 'x\r\ny\rz\n\nw\x0bv\x0c', 'one\u2029two\x1dthree\x1e']
for s in S:
    for args in [(), (None,), (None, 0), (None, 1), (None, 2), (',',), (',', 1), ('a',), ('aa',), ('a', 1), ('ö',), (' ', -1), (' ', 2)]:
        print(repr(s), args, s.split(*args), s.rsplit(*args))
        try:
            b = s.encode('utf-8')
            bargs = tuple(a.encode() if isinstance(a, str) else a for a in args)
            print(b.split(*bargs), b.rsplit(*bargs), bytearray(b).split(*bargs), bytearray(b).rsplit(*bargs))
        except ValueError as e:
            print(e)
    print(s.splitlines(), s.splitlines(True), s.encode().splitlines(), s.encode().splitlines(keepends=True), bytearray(s.encode()).splitlines(1))
print('a b c'.split(maxsplit=1), 'a,b,c'.rsplit(sep=',', maxsplit=1), b'a b\x85c\xa0d'.split(), b'a\x1cb\x1dc'.splitlines(), 'a\x1cb\x1dc'.splitlines())
for f in [lambda: b'a'.split(1), lambda: b'a'.split('a'), lambda: b'a'.split(b''), lambda: 'a'.split(''), lambda: 'a'.split(1), lambda: b'a'.split(maxsplit='x'), lambda: 'a'.split(maxsplit=1.5), lambda: 'a'.splitlines(1.5), lambda: 'a'.splitlines('x'), lambda: b'a'.rsplit(sep=bytearray(b'a')), lambda: 'a'.split(None, 2**70), lambda: bytearray(b'a,b').split(','), lambda: 'a b'.rsplit(None, 2**70)]:
  try: print(repr(f()))
  except Exception as e: print(type(e).__name__, e)
