# bytes/bytearray methods have ASCII semantics (bytes >= 0x80 are never letters, digits or
# whitespace and are never case-mapped), int arguments after the first are positions, and the
# methods the PVM added: isascii, islower, isupper, istitle, expandtabs, maketrans, translate.

samples = [b'\xe9', b'\xe9a', b'ab\xe9', b'\xb2', b'\xa0', b'\x85x', b'\x1c', b'a\x1fb',
           b'Hello World', b'hello', b'HELLO', b'', b'123', b' \t\n\r\x0b\x0c']
for b in samples:
    print(b, b.isalpha(), b.isalnum(), b.isdigit(), b.isspace(), b.isascii(), b.islower(),
          b.isupper(), b.istitle())
    print(' ', b.upper(), b.lower(), b.title(), b.swapcase(), b.capitalize(), b.split(),
          b.strip(), b.splitlines())
print(b'\xe9t\xe9 caf\xe9'.title(), b'x\xe9y'.capitalize(), b'\xc9A'.lower())
print(b'a\xa0b c'.split(), b'\xa0a\xa0'.strip(), b'a\x1cb'.split(), b'a\x85b'.splitlines())

# int arguments: the byte to look for first, positions after it
b = b'abcabc'
print(b.find(98), b.find(98, 2), b.rfind(97, 0, 3), b.index(99, 3), b.count(97, 1),
      b.rindex(98, 0, 5), b.find(b'c', 3, 6))
print(b'ab'.ljust(5), b'ab'.rjust(5, b'*'), b'ab'.center(7, b'\xe9'), b'7'.zfill(4))
print(b'a b c'.split(None, 1), b'a b c'.rsplit(maxsplit=1), b'a,b,c'.split(b',', 1))
print(b'1\t22\t333'.expandtabs(), b'1\t22\t333'.expandtabs(2), b'a\tb\n\tc'.expandtabs(4))

# maketrans / translate
t = bytes.maketrans(b'abc', b'xyz')
print(len(t), t[97:100], t[:3], b'aabbcc'.translate(t), b'abcdef'.translate(t, b'df'))
print(b'hello'.translate(None, b'l'), b'hello'.translate(None, delete=b'h'))
print(bytearray(b'abc').translate(t), bytearray.maketrans(b'a', b'b')[97])
print(b''.maketrans(b'\xe9', b'e')[0xe9])
for bad in [lambda: bytes.maketrans(b'ab', b'x'), lambda: b'a'.translate(b'short'),
            lambda: bytes.maketrans('a', 'b')]:
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)

# bytearray methods reached through the type
ba = bytearray(b'xy')
bytearray.append(ba, 122)
bytearray.extend(ba, b'!!')
print(ba, bytearray.upper(ba), bytearray.count(ba, 33), bytearray.isascii(ba))
print(bytearray(b'\xe9a').isalpha(), bytearray(b'\xe9a').upper(), bytearray(b'A\xe9').istitle())
