"""base64 for the PVM: Base64, Base32 and Base16 data encodings (RFC 4648).

Covers: b64encode/b64decode (altchars=, validate= with CPython 3.11's strict-mode errors),
standard_b64encode/decode, urlsafe_b64encode/decode, encodebytes/decodebytes (76-character
lines), b32encode/b32decode (casefold=, map01=), b32hexencode/b32hexdecode,
b16encode/b16decode (casefold=). Inputs are bytes or bytearray (decoders also take ASCII
str; the PVM has no memoryview); the non-validating Base64 decoder skips non-alphabet characters and stops at complete padding,
exactly like binascii.a2b_base64. Errors are raised as `Error` (shown as binascii.Error, a
ValueError subclass) with CPython's messages ("Incorrect padding", "Non-base32 digit found",
...).

Also a85encode/a85decode (foldspaces, wrapcol, pad, adobe, ignorechars), b85encode/b85decode
(pad), with CPython's ValueError messages, and the legacy file helpers encode/decode (binary
file objects, i.e. /tmp files on the PVM) with MAXLINESIZE, MAXBINSIZE, bytes_types.

Does not: accept memoryview or other buffer objects (the PVM has none); provide z85 (3.13) or
the command-line main/test.
Written for the PVM from the documented behaviour; builtins only.
"""

__all__ = ['encode', 'decode', 'encodebytes', 'decodebytes', 'b64encode', 'b64decode',
           'b32encode', 'b32decode', 'b32hexencode', 'b32hexdecode', 'b16encode', 'b16decode',
           'b85encode', 'b85decode', 'a85encode', 'a85decode', 'standard_b64encode',
           'standard_b64decode', 'urlsafe_b64encode', 'urlsafe_b64decode']


class Error(ValueError):
    """binascii.Error: malformed encoded data."""


# CPython raises binascii.Error; give ours the same printed name.
Error.__module__ = 'binascii'

_B64 = b'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
_B64_REV = {c: i for i, c in enumerate(_B64)}
_B32 = b'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
_B32HEX = b'0123456789ABCDEFGHIJKLMNOPQRSTUV'
_B16 = b'0123456789ABCDEF'


def _bytes_from_decode_data(s):
    if isinstance(s, str):
        try:
            return s.encode('ascii')
        except UnicodeEncodeError:
            raise ValueError('string argument should contain only ASCII characters') from None
    if isinstance(s, (bytes, bytearray)):
        return bytes(s)
    raise TypeError("argument should be a bytes-like object or ASCII "
                    f"string, not {s.__class__.__name__!r}")


def _bytes_for_encode(s, message="a bytes-like object is required, not '{}'"):
    if isinstance(s, (bytes, bytearray)):
        return bytes(s)
    raise TypeError(message.format(type(s).__name__))


def _b64_encode_raw(data):
    out = bytearray()
    n = len(data)
    for i in range(0, n - n % 3, 3):
        v = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2]
        out += bytes((_B64[v >> 18], _B64[(v >> 12) & 63], _B64[(v >> 6) & 63], _B64[v & 63]))
    rest = n % 3
    if rest == 1:
        v = data[n - 1] << 16
        out += bytes((_B64[v >> 18], _B64[(v >> 12) & 63])) + b'=='
    elif rest == 2:
        v = (data[n - 2] << 16) | (data[n - 1] << 8)
        out += bytes((_B64[v >> 18], _B64[(v >> 12) & 63], _B64[(v >> 6) & 63])) + b'='
    return bytes(out)


def _a2b_base64(data, strict):
    """binascii.a2b_base64: decode, skipping junk unless strict."""
    if strict and data[:1] == b'=':
        raise Error('Leading padding not allowed')
    out = bytearray()
    quad_pos = 0
    leftchar = 0
    pads = 0
    padding_started = False
    count = 0
    n = len(data)
    for i in range(n):
        c = data[i]
        if c == 61:  # '='
            padding_started = True
            if strict and quad_pos == 0:
                raise Error('Excess padding not allowed')
            if quad_pos >= 2:
                pads += 1
                if quad_pos + pads >= 4:
                    if strict and i + 1 < n:
                        raise Error('Excess data after padding')
                    return bytes(out)
            continue
        v = _B64_REV.get(c)
        if v is None:
            if strict:
                raise Error('Only base64 data is allowed')
            continue
        if strict and padding_started:
            raise Error('Discontinuous padding not allowed')
        pads = 0
        count += 1
        if quad_pos == 0:
            leftchar = v
            quad_pos = 1
        elif quad_pos == 1:
            out.append(((leftchar << 2) | (v >> 4)) & 0xFF)
            leftchar = v & 0x0F
            quad_pos = 2
        elif quad_pos == 2:
            out.append(((leftchar << 4) | (v >> 2)) & 0xFF)
            leftchar = v & 0x03
            quad_pos = 3
        else:
            out.append(((leftchar << 6) | v) & 0xFF)
            leftchar = 0
            quad_pos = 0
    if quad_pos == 1:
        raise Error('Invalid base64-encoded string: number of data characters '
                    f'({count}) cannot be 1 more than a multiple of 4')
    if quad_pos != 0:
        raise Error('Incorrect padding')
    return bytes(out)


def _translate(data, frm, to):
    table = {f: t for f, t in zip(frm, to)}
    return bytes(table.get(c, c) for c in data)


def b64encode(s, altchars=None):
    """Encode bytes-like s with Base64; altchars replaces '+/'."""
    encoded = _b64_encode_raw(_bytes_for_encode(s))
    if altchars is not None:
        if len(altchars) != 2:
            raise AssertionError(repr(altchars))
        return _translate(encoded, b'+/', bytes(altchars))
    return encoded


def b64decode(s, altchars=None, validate=False):
    """Decode Base64 s (bytes-like or ASCII str); altchars replaces '+/'."""
    s = _bytes_from_decode_data(s)
    if altchars is not None:
        altchars = _bytes_from_decode_data(altchars)
        if len(altchars) != 2:
            raise AssertionError(repr(altchars))
        s = _translate(s, altchars, b'+/')
    return _a2b_base64(s, bool(validate))


def standard_b64encode(s):
    """Base64 with the standard alphabet."""
    return b64encode(s)


def standard_b64decode(s):
    """Decode Base64 with the standard alphabet."""
    return b64decode(s)


def urlsafe_b64encode(s):
    """Base64 with the URL- and filesystem-safe alphabet ('-' and '_' for '+' and '/')."""
    return _translate(b64encode(s), b'+/', b'-_')


def urlsafe_b64decode(s):
    """Decode URL-safe Base64."""
    s = _bytes_from_decode_data(s)
    return b64decode(_translate(s, b'-_', b'+/'))


def encodebytes(s):
    """Base64 in lines of at most 76 characters, each ending with a newline."""
    s = _bytes_for_encode(s, "expected bytes-like object, not {}")
    pieces = []
    for i in range(0, len(s), MAXBINSIZE):
        pieces.append(_b64_encode_raw(s[i:i + MAXBINSIZE]) + b'\n')
    return b''.join(pieces)


def decodebytes(s):
    """Decode lines of Base64 produced by encodebytes."""
    s = _bytes_for_encode(s, "expected bytes-like object, not {}")
    return _a2b_base64(s, False)


def _b32encode(alphabet, s):
    s = _bytes_for_encode(s, "memoryview: a bytes-like object is required, not '{}'")
    leftover = len(s) % 5
    if leftover:
        s = s + b'\0' * (5 - leftover)
    out = bytearray()
    for i in range(0, len(s), 5):
        c = int.from_bytes(s[i:i + 5], 'big')
        for shift in range(35, -1, -5):
            out.append(alphabet[(c >> shift) & 31])
    if leftover == 1:
        out[-6:] = b'======'
    elif leftover == 2:
        out[-4:] = b'===='
    elif leftover == 3:
        out[-3:] = b'==='
    elif leftover == 4:
        out[-1:] = b'='
    return bytes(out)


def _b32decode(alphabet, s, casefold=False, map01=None):
    s = _bytes_from_decode_data(s)
    if len(s) % 8:
        raise Error('Incorrect padding')
    if map01 is not None:
        map01 = _bytes_from_decode_data(map01)
        if len(map01) != 1:
            raise AssertionError(repr(map01))
        s = _translate(s, b'01', b'O' + map01)
    if casefold:
        s = s.upper()
    rev = {c: i for i, c in enumerate(alphabet)}
    total = len(s)
    s = s.rstrip(b'=')
    padchars = total - len(s)
    decoded = bytearray()
    for i in range(0, len(s), 8):
        acc = 0
        for c in s[i:i + 8]:
            v = rev.get(c)
            if v is None:
                raise Error('Non-base32 digit found')
            acc = (acc << 5) + v
        decoded += acc.to_bytes(5, 'big')
    if total % 8 or padchars not in (0, 1, 3, 4, 6):
        raise Error('Incorrect padding')
    if padchars and decoded:
        acc <<= 5 * padchars
        last = acc.to_bytes(5, 'big')
        leftover = (43 - 5 * padchars) // 8
        decoded[-5:] = last[:leftover]
    return bytes(decoded)


def b32encode(s):
    """Encode bytes-like s with Base32."""
    return _b32encode(_B32, s)


def b32decode(s, casefold=False, map01=None):
    """Decode Base32; casefold accepts lowercase, map01 maps '0'->'O' and '1'->map01."""
    return _b32decode(_B32, s, casefold, map01)


def b32hexencode(s):
    """Encode bytes-like s with the Extended Hex Base32 alphabet."""
    return _b32encode(_B32HEX, s)


def b32hexdecode(s, casefold=False):
    """Decode Extended Hex Base32."""
    return _b32decode(_B32HEX, s, casefold)


def b16encode(s):
    """Encode bytes-like s with Base16 (uppercase hex)."""
    s = _bytes_for_encode(s)
    return bytes(b for c in s for b in (_B16[c >> 4], _B16[c & 15]))


def b16decode(s, casefold=False):
    """Decode Base16; casefold accepts lowercase digits."""
    s = _bytes_from_decode_data(s)
    if casefold:
        s = s.upper()
    for c in s:
        if c not in _B16:
            raise Error('Non-base16 digit found')
    if len(s) % 2:
        raise Error('Odd-length string')
    return bytes(_B16.index(s[i]) * 16 + _B16.index(s[i + 1]) for i in range(0, len(s), 2))


# Ascii85 and Base85: each 4-byte big-endian word is written as 5 base-85 digits; a short
# last group is zero-padded and its extra digits dropped (unless pad=True).

_A85START = b"<~"
_A85END = b"~>"
_B85ALPHABET = (b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                b"abcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~")
_B85DEC = {c: i for i, c in enumerate(_B85ALPHABET)}


def _85encode(b, alphabet, pad, foldnuls, foldspaces):
    b = _bytes_for_encode(b, "memoryview: a bytes-like object is required, not '{}'")
    padding = -len(b) % 4
    if padding:
        b += b'\0' * padding
    chunks = []
    for i in range(0, len(b), 4):
        word = int.from_bytes(b[i:i + 4], 'big')
        if foldnuls and not word:
            chunks.append(b'z')
        elif foldspaces and word == 0x20202020:
            chunks.append(b'y')
        else:
            digits = bytearray(5)
            for k in range(4, -1, -1):
                word, digits[k] = divmod(word, 85)
            chunks.append(bytes(alphabet[d] for d in digits))
    if padding and not pad:
        # A folded last group is expanded before its padding digits are dropped.
        if chunks[-1] == b'z':
            chunks[-1] = bytes([alphabet[0]]) * 5
        chunks[-1] = chunks[-1][:-padding]
    return b''.join(chunks)


_A85ALPHABET = bytes(range(33, 118))


def a85encode(b, *, foldspaces=False, wrapcol=0, pad=False, adobe=False):
    """Ascii85: 'z' stands for four zero bytes, 'y' (with foldspaces) for four spaces;
    wrapcol splits the output into lines, adobe frames it with <~ and ~>."""
    result = _85encode(b, _A85ALPHABET, pad, True, foldspaces)
    if adobe:
        result = _A85START + result
    if wrapcol:
        wrapcol = max(2 if adobe else 1, wrapcol)
        chunks = [result[i:i + wrapcol] for i in range(0, len(result), wrapcol)]
        # The closing ~> must fit on the last line.
        if adobe and len(chunks[-1]) + 2 > wrapcol:
            chunks.append(b'')
        result = b'\n'.join(chunks)
    if adobe:
        result += _A85END
    return result


def a85decode(b, *, foldspaces=False, adobe=False, ignorechars=b' \t\n\r\v'):
    """Decode Ascii85 (bytes or ASCII str); characters in ignorechars are skipped."""
    b = _bytes_from_decode_data(b)
    if adobe:
        if not b.endswith(_A85END):
            raise ValueError(f"Ascii85 encoded byte sequences must end with {_A85END!r}")
        b = b[2:-2] if b.startswith(_A85START) else b[:-2]
    decoded = []
    group = []
    # Four 'u' (the largest digit) complete a short last group; the extra bytes go.
    for x in b + b'uuuu':
        if 33 <= x <= 117:
            group.append(x)
            if len(group) == 5:
                acc = 0
                for d in group:
                    acc = 85 * acc + (d - 33)
                if acc > 0xFFFFFFFF:
                    raise ValueError('Ascii85 overflow')
                decoded.append(acc.to_bytes(4, 'big'))
                group = []
        elif x == 122:  # z
            if group:
                raise ValueError('z inside Ascii85 5-tuple')
            decoded.append(b'\0\0\0\0')
        elif foldspaces and x == 121:  # y
            if group:
                raise ValueError('y inside Ascii85 5-tuple')
            decoded.append(b'    ')
        elif x in ignorechars:
            continue
        else:
            raise ValueError(f'Non-Ascii85 digit found: {chr(x)}')
    result = b''.join(decoded)
    padding = 4 - len(group)
    if padding:
        result = result[:-padding]
    return result


def b85encode(b, pad=False):
    """Base85 (the alphabet of git and Mercurial binary diffs)."""
    return _85encode(b, _B85ALPHABET, pad, False, False)


def b85decode(b):
    """Decode Base85 (bytes or ASCII str)."""
    b = _bytes_from_decode_data(b)
    padding = -len(b) % 5
    b += b'~' * padding
    out = []
    for i in range(0, len(b), 5):
        acc = 0
        for j in range(i, i + 5):
            d = _B85DEC.get(b[j])
            if d is None:
                raise ValueError(f'bad base85 character at position {j}')
            acc = acc * 85 + d
        if acc > 0xFFFFFFFF:
            raise ValueError(f'base85 overflow in hunk starting at byte {i}')
        out.append(acc.to_bytes(4, 'big'))
    result = b''.join(out)
    if padding:
        result = result[:-padding]
    return result


# The legacy file interface: binary file objects (on the PVM, files under /tmp).

MAXLINESIZE = 76
MAXBINSIZE = (MAXLINESIZE // 4) * 3
bytes_types = (bytes, bytearray)


def encode(input, output):
    """Base64-encode the binary file input into output, in lines of 76 characters."""
    while True:
        s = input.read(MAXBINSIZE)
        if not s:
            break
        while len(s) < MAXBINSIZE:
            ns = input.read(MAXBINSIZE - len(s))
            if not ns:
                break
            s += ns
        output.write(_b64_encode_raw(s) + b'\n')


def decode(input, output):
    """Base64-decode the binary file input, line by line, into output."""
    while True:
        line = input.readline()
        if not line:
            break
        output.write(_a2b_base64(line, False))
