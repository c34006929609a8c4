"""json for the PVM: JSON encoding and decoding (RFC 8259), as CPython 3.11's json.

Covers: dumps/dump (skipkeys, ensure_ascii, check_circular, allow_nan, cls, indent as int or
str, separators, default, sort_keys), loads/load (cls, object_hook, object_pairs_hook,
parse_float, parse_int, parse_constant, strict), JSONEncoder (encode, iterencode, default),
JSONDecoder (decode, raw_decode), JSONDecodeError (a ValueError shown as
json.decoder.JSONDecodeError, with msg/doc/pos/lineno/colno and CPython's messages and
positions: "Expecting value", "Expecting ',' delimiter", "Expecting ':' delimiter",
"Expecting property name enclosed in double quotes", "Unterminated string starting at",
"Invalid control character at", "Invalid \\escape", "Invalid \\uXXXX escape", "Extra data",
"Unexpected UTF-8 BOM ..."). Floats are written with float.__repr__ (NaN/Infinity/-Infinity
unless allow_nan=False), ints with int.__repr__ (so IntEnum members encode as numbers),
dict keys of type int/float/bool/None are converted as CPython does; surrogate pairs are
combined when decoding \\u escapes, and a lone surrogate escape is a JSONDecodeError ("Lone
surrogate \\uXXXX escape is not supported by the PVM") because the PVM's str cannot hold it.

Nesting is bounded: more than MAX_DEPTH (500) nested arrays/objects raise RecursionError
with CPython's message ("maximum recursion depth exceeded while decoding a JSON array from a
unicode string" / "... while encoding a JSON object"). CPython's own bound depends on the
interpreter stack (about 1000); ours is a fixed number so it is deterministic. Both the
encoder and the decoder are iterative (explicit stacks), so deep data never deepens the PVM
call stack.

Does not: decode bytes other than UTF-8 (CPython also sniffs UTF-16/32), provide the
json.tool CLI or the json.encoder/json.decoder/json.scanner submodules, or accept a
user-defined JSONEncoder.iterencode override in dumps. Written for the PVM from the
documented behaviour; builtins only.
"""

__all__ = ['dump', 'dumps', 'load', 'loads', 'JSONDecoder', 'JSONDecodeError', 'JSONEncoder']

MAX_DEPTH = 500


class JSONDecodeError(ValueError):
    """Subclass of ValueError with the position of the error in the document."""

    def __init__(self, msg, doc, pos):
        lineno = doc.count('\n', 0, pos) + 1
        colno = pos - doc.rfind('\n', 0, pos)
        errmsg = '%s: line %d column %d (char %d)' % (msg, lineno, colno, pos)
        ValueError.__init__(self, errmsg)
        self.msg = msg
        self.doc = doc
        self.pos = pos
        self.lineno = lineno
        self.colno = colno

    def __reduce__(self):
        return self.__class__, (self.msg, self.doc, self.pos)


JSONDecodeError.__module__ = 'json.decoder'

# ---------------------------------------------------------------------------- encoding

_ESCAPES = {
    '\\': '\\\\', '"': '\\"', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t',
}
for _i in range(0x20):
    _ESCAPES.setdefault(chr(_i), '\\u{0:04x}'.format(_i))
del _i


def _quote_unicode(s):
    """Quote s, escaping only quotes, backslashes and control characters."""
    return '"' + ''.join(_ESCAPES.get(c, c) for c in s) + '"'


def _quote_ascii(s):
    """Quote s with every non-ASCII character as a \\uXXXX escape."""
    out = ['"']
    for c in s:
        e = _ESCAPES.get(c)
        if e is not None:
            out.append(e)
            continue
        n = ord(c)
        if n < 0x7f:
            out.append(c)
        elif n < 0x10000:
            out.append('\\u{0:04x}'.format(n))
        else:
            n -= 0x10000
            out.append('\\u{0:04x}\\u{1:04x}'.format(0xd800 | (n >> 10), 0xdc00 | (n & 0x3ff)))
    out.append('"')
    return ''.join(out)


_INFINITY = float('inf')


class JSONEncoder:
    """Extensible JSON encoder: override default() to serialise other types."""

    item_separator = ', '
    key_separator = ': '

    def __init__(self, *, skipkeys=False, ensure_ascii=True, check_circular=True,
                 allow_nan=True, sort_keys=False, indent=None, separators=None,
                 default=None):
        self.skipkeys = skipkeys
        self.ensure_ascii = ensure_ascii
        self.check_circular = check_circular
        self.allow_nan = allow_nan
        self.sort_keys = sort_keys
        self.indent = indent
        if separators is not None:
            self.item_separator, self.key_separator = separators
        elif indent is not None:
            self.item_separator = ','
        if default is not None:
            self.default = default

    def default(self, o):
        """Return a serialisable object for o, or raise TypeError."""
        raise TypeError(f'Object of type {o.__class__.__name__} is not JSON serializable')

    def encode(self, o):
        """Return the JSON text for o."""
        if isinstance(o, str):
            return _quote_ascii(o) if self.ensure_ascii else _quote_unicode(o)
        return ''.join(self.iterencode(o))

    def iterencode(self, o, _one_shot=False):
        """Yield the JSON text for o in chunks."""
        chunks = []
        _Encoding(self).encode(o, chunks)
        yield from chunks


class _Encoding:
    """One encoding run: settings plus the stack of containers being encoded."""

    def __init__(self, enc):
        self.enc = enc
        self.quote = _quote_ascii if enc.ensure_ascii else _quote_unicode
        indent = enc.indent
        if indent is not None and not isinstance(indent, str):
            indent = ' ' * indent
        self.indent = indent
        self.markers = [] if enc.check_circular else None

    def floatstr(self, o):
        if o != o:
            text = 'NaN'
        elif o == _INFINITY:
            text = 'Infinity'
        elif o == -_INFINITY:
            text = '-Infinity'
        else:
            return float.__repr__(o)
        if not self.enc.allow_nan:
            raise ValueError("Out of range float values are not JSON compliant")
        return text

    def enter(self, o, depth):
        if depth >= MAX_DEPTH:
            raise RecursionError('maximum recursion depth exceeded while encoding a JSON object')
        if self.markers is not None:
            for m in self.markers:
                if m is o:
                    raise ValueError("Circular reference detected")
            self.markers.append(o)

    def leave(self):
        if self.markers is not None:
            self.markers.pop()

    def key_text(self, key):
        """The JSON object key for a dict key, or None to skip it (skipkeys)."""
        if isinstance(key, str):
            return key
        if isinstance(key, float):
            return self.floatstr(key)
        if key is True:
            return 'true'
        if key is False:
            return 'false'
        if key is None:
            return 'null'
        if isinstance(key, int):
            return int.__repr__(key)
        if self.enc.skipkeys:
            return None
        raise TypeError(f'keys must be str, int, float, bool or None, '
                        f'not {key.__class__.__name__}')

    def encode(self, o, out):
        """Append the JSON text of o to out. Iterative: open containers live on an
        explicit stack of [kind, iterator, first, level] entries ('d' marks a default()
        result, whose circularity marker is dropped when it is done)."""
        indent = self.indent
        item_sep = self.enc.item_separator
        key_sep = self.enc.key_separator
        stack = []
        level = 0
        pending = o
        while True:
            v = pending
            if isinstance(v, str):
                out.append(self.quote(v))
            elif v is None:
                out.append('null')
            elif v is True:
                out.append('true')
            elif v is False:
                out.append('false')
            elif isinstance(v, int):
                out.append(int.__repr__(v))
            elif isinstance(v, float):
                out.append(self.floatstr(v))
            elif isinstance(v, (list, tuple)):
                if not v:
                    out.append('[]')
                else:
                    self.enter(v, len(stack))
                    out.append('[')
                    level += 1
                    stack.append(['[', iter(v), True, level])
            elif isinstance(v, dict):
                if not v:
                    out.append('{}')
                else:
                    self.enter(v, len(stack))
                    out.append('{')
                    level += 1
                    items = sorted(v.items()) if self.enc.sort_keys else v.items()
                    stack.append(['{', iter(items), True, level])
            else:
                self.enter(v, len(stack))
                stack.append(['d', None, None, level])
                pending = self.enc.default(v)
                continue
            # Find the next value to write.
            while stack:
                top = stack[-1]
                kind = top[0]
                if kind == 'd':
                    stack.pop()
                    self.leave()
                    continue
                item = next(top[1], _END)
                if item is _END:
                    stack.pop()
                    level -= 1
                    if indent is not None:
                        out.append('\n' + indent * level)
                    out.append(']' if kind == '[' else '}')
                    self.leave()
                    continue
                if kind == '{':
                    key = self.key_text(item[0])
                    if key is None:
                        continue
                if top[2]:
                    top[2] = False
                    if indent is not None:
                        out.append('\n' + indent * top[3])
                else:
                    out.append(item_sep)
                    if indent is not None:
                        out.append('\n' + indent * top[3])
                if kind == '[':
                    pending = item
                else:
                    out.append(self.quote(key))
                    out.append(key_sep)
                    pending = item[1]
                break
            else:
                return


_END = object()


_default_encoder = JSONEncoder()


def dumps(obj, *, skipkeys=False, ensure_ascii=True, check_circular=True, allow_nan=True,
          cls=None, indent=None, separators=None, default=None, sort_keys=False, **kw):
    """Serialise obj to a JSON formatted str."""
    if (not skipkeys and ensure_ascii and check_circular and allow_nan and cls is None
            and indent is None and separators is None and default is None
            and not sort_keys and not kw):
        return _default_encoder.encode(obj)
    if cls is None:
        cls = JSONEncoder
    return cls(skipkeys=skipkeys, ensure_ascii=ensure_ascii, check_circular=check_circular,
               allow_nan=allow_nan, indent=indent, separators=separators, default=default,
               sort_keys=sort_keys, **kw).encode(obj)


def dump(obj, fp, *, cls=None, **kwargs):
    """Serialise obj as JSON to the file-like fp (anything with a write(str) method)."""
    for chunk in (cls or JSONEncoder)(**kwargs).iterencode(obj):
        fp.write(chunk)


# ---------------------------------------------------------------------------- decoding

_WS = ' \t\n\r'
_DIGITS = '0123456789'
_HEX = frozenset('0123456789abcdefABCDEF')
_BACKSLASH = {'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r',
              't': '\t'}


class _NoValue(Exception):
    """Internal: no JSON value starts at the given position."""

    def __init__(self, pos):
        Exception.__init__(self, pos)
        self.pos = pos


def _skip_ws(s, idx):
    n = len(s)
    while idx < n and s[idx] in _WS:
        idx += 1
    return idx


def _decode_uXXXX(s, pos):
    # pos is the index of the 'u'; CPython reports errors there.
    esc = s[pos + 1:pos + 5]
    if len(esc) == 4 and all(c in _HEX for c in esc):
        return int(esc, 16)
    raise JSONDecodeError("Invalid \\uXXXX escape", s, pos)


def _scanstring(s, end, strict=True):
    """Decode the string whose opening quote is at end - 1; return (str, index after it)."""
    chunks = []
    begin = end - 1
    n = len(s)
    while True:
        q = s.find('"', end)
        # Look for a backslash only before the closing quote: searching to the end of the
        # document made every string cost the rest of the document (quadratic decoding).
        b = s.find('\\', end, q if q >= 0 else n)
        stop = n
        if q >= 0:
            stop = q
        if 0 <= b < stop:
            stop = b
        segment = s[end:stop]
        if strict:
            for k, c in enumerate(segment):
                if c < ' ':
                    raise JSONDecodeError("Invalid control character at", s, end + k)
        chunks.append(segment)
        if stop >= n:
            raise JSONDecodeError("Unterminated string starting at", s, begin)
        if stop == q:
            return ''.join(chunks), q + 1
        # A backslash escape at `stop`.
        if stop + 1 >= n:
            raise JSONDecodeError("Unterminated string starting at", s, begin)
        esc = s[stop + 1]
        if esc != 'u':
            char = _BACKSLASH.get(esc)
            if char is None:
                raise JSONDecodeError("Invalid \\escape", s, stop)
            chunks.append(char)
            end = stop + 2
            continue
        uni = _decode_uXXXX(s, stop + 1)
        end = stop + 6
        if 0xd800 <= uni <= 0xdbff and s[end:end + 2] == '\\u':
            uni2 = _decode_uXXXX(s, end + 1)
            if 0xdc00 <= uni2 <= 0xdfff:
                uni = 0x10000 + (((uni - 0xd800) << 10) | (uni2 - 0xdc00))
                end += 6
        if 0xd800 <= uni <= 0xdfff:
            # The PVM's str holds Unicode scalar values only (LIMITATIONS.md): CPython would
            # return a string containing this lone surrogate.
            raise JSONDecodeError("Lone surrogate \\uXXXX escape is not supported by the PVM",
                                  s, stop)
        chunks.append(chr(uni))


class JSONDecoder:
    """Simple JSON decoder with the hooks of CPython's."""

    def __init__(self, *, object_hook=None, parse_float=None, parse_int=None,
                 parse_constant=None, strict=True, object_pairs_hook=None):
        self.object_hook = object_hook
        self.parse_float = parse_float or float
        self.parse_int = parse_int or int
        self.parse_constant = parse_constant or _CONSTANTS.__getitem__
        self.strict = strict
        self.object_pairs_hook = object_pairs_hook

    def decode(self, s):
        """Return the Python value of the JSON document s (whitespace allowed around it)."""
        obj, end = self.raw_decode(s, idx=_skip_ws(s, 0))
        end = _skip_ws(s, end)
        if end != len(s):
            raise JSONDecodeError("Extra data", s, end)
        return obj

    def raw_decode(self, s, idx=0):
        """Decode one JSON value starting exactly at s[idx]; return (value, end index)."""
        try:
            return self._scan(s, idx)
        except _NoValue as err:
            raise JSONDecodeError("Expecting value", s, err.pos) from None

    def _finish_object(self, pairs):
        if self.object_pairs_hook is not None:
            return self.object_pairs_hook(pairs)
        obj = dict(pairs)
        if self.object_hook is not None:
            return self.object_hook(obj)
        return obj

    def _key_colon(self, s, idx):
        """Parse a key whose quote is at idx, then the ':' and whitespace after it."""
        key, idx = _scanstring(s, idx + 1, self.strict)
        idx = _skip_ws(s, idx)
        if s[idx:idx + 1] != ':':
            raise JSONDecodeError("Expecting ':' delimiter", s, idx)
        return key, _skip_ws(s, idx + 1)

    def _number(self, s, idx):
        n = len(s)
        start = idx
        if idx < n and s[idx] == '-':
            idx += 1
        if idx < n and '1' <= s[idx] <= '9':
            idx += 1
            while idx < n and s[idx] in _DIGITS:
                idx += 1
        elif idx < n and s[idx] == '0':
            idx += 1
        else:
            raise _NoValue(start)
        is_float = False
        if idx + 1 < n and s[idx] == '.' and s[idx + 1] in _DIGITS:
            is_float = True
            idx += 2
            while idx < n and s[idx] in _DIGITS:
                idx += 1
        if idx < n and s[idx] in 'eE':
            e_start = idx
            idx += 1
            if idx < n and s[idx] in '-+':
                idx += 1
            digits_at = idx
            while idx < n and s[idx] in _DIGITS:
                idx += 1
            if idx > digits_at:
                is_float = True
            else:
                idx = e_start
        text = s[start:idx]
        value = self.parse_float(text) if is_float else self.parse_int(text)
        return value, idx

    def _scan(self, s, idx):
        # An explicit stack of open containers: ['[', items] or ['{', pairs, key].
        stack = []
        while True:
            c = s[idx:idx + 1]
            if c == '"':
                value, idx = _scanstring(s, idx + 1, self.strict)
            elif c == '{':
                idx = _skip_ws(s, idx + 1)
                c = s[idx:idx + 1]
                if c == '}':
                    value = self._finish_object([])
                    idx += 1
                elif c != '"':
                    raise JSONDecodeError(
                        "Expecting property name enclosed in double quotes", s, idx)
                else:
                    if len(stack) >= MAX_DEPTH:
                        raise RecursionError('maximum recursion depth exceeded while '
                                             'decoding a JSON object from a unicode string')
                    key, idx = self._key_colon(s, idx)
                    stack.append(['{', [], key])
                    continue
            elif c == '[':
                idx = _skip_ws(s, idx + 1)
                if s[idx:idx + 1] == ']':
                    value = []
                    idx += 1
                else:
                    if len(stack) >= MAX_DEPTH:
                        raise RecursionError('maximum recursion depth exceeded while '
                                             'decoding a JSON array from a unicode string')
                    stack.append(['[', []])
                    continue
            elif c == 'n' and s.startswith('null', idx):
                value, idx = None, idx + 4
            elif c == 't' and s.startswith('true', idx):
                value, idx = True, idx + 4
            elif c == 'f' and s.startswith('false', idx):
                value, idx = False, idx + 5
            elif c == 'N' and s.startswith('NaN', idx):
                value, idx = self.parse_constant('NaN'), idx + 3
            elif c == 'I' and s.startswith('Infinity', idx):
                value, idx = self.parse_constant('Infinity'), idx + 8
            elif c == '-' and s.startswith('-Infinity', idx):
                value, idx = self.parse_constant('-Infinity'), idx + 9
            else:
                value, idx = self._number(s, idx)

            # Attach the value to the innermost open container(s).
            while True:
                if not stack:
                    return value, idx
                top = stack[-1]
                idx = _skip_ws(s, idx)
                c = s[idx:idx + 1]
                if top[0] == '[':
                    top[1].append(value)
                    if c == ']':
                        stack.pop()
                        value = top[1]
                        idx += 1
                        continue
                    if c != ',':
                        raise JSONDecodeError("Expecting ',' delimiter", s, idx)
                    idx = _skip_ws(s, idx + 1)
                    break
                top[1].append((top[2], value))
                if c == '}':
                    stack.pop()
                    value = self._finish_object(top[1])
                    idx += 1
                    continue
                if c != ',':
                    raise JSONDecodeError("Expecting ',' delimiter", s, idx)
                idx = _skip_ws(s, idx + 1)
                if s[idx:idx + 1] != '"':
                    raise JSONDecodeError(
                        "Expecting property name enclosed in double quotes", s, idx)
                top[2], idx = self._key_colon(s, idx)
                break


_CONSTANTS = {'-Infinity': float('-inf'), 'Infinity': float('inf'), 'NaN': float('nan')}
_default_decoder = JSONDecoder()


def loads(s, *, cls=None, object_hook=None, parse_float=None, parse_int=None,
          parse_constant=None, object_pairs_hook=None, **kw):
    """Deserialise s (str, bytes or bytearray holding UTF-8 JSON) to a Python object."""
    if isinstance(s, str):
        if s.startswith('\ufeff'):
            raise JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", s, 0)
    elif isinstance(s, (bytes, bytearray)):
        s = bytes(s)
        s = s.decode('utf-8-sig' if s.startswith(b'\xef\xbb\xbf') else 'utf-8')
    else:
        raise TypeError(f'the JSON object must be str, bytes or bytearray, '
                        f'not {s.__class__.__name__}')
    if (cls is None and object_hook is None and parse_int is None and parse_float is None
            and parse_constant is None and object_pairs_hook is None and not kw):
        return _default_decoder.decode(s)
    if cls is None:
        cls = JSONDecoder
    if object_hook is not None:
        kw['object_hook'] = object_hook
    if object_pairs_hook is not None:
        kw['object_pairs_hook'] = object_pairs_hook
    if parse_float is not None:
        kw['parse_float'] = parse_float
    if parse_int is not None:
        kw['parse_int'] = parse_int
    if parse_constant is not None:
        kw['parse_constant'] = parse_constant
    return cls(**kw).decode(s)


def load(fp, **kw):
    """Deserialise the JSON text read from the file-like fp (anything with read())."""
    return loads(fp.read(), **kw)
