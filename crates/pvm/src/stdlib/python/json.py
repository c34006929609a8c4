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

The scanning and encoding run in Rust (`_json`, src/native/json.rs), as CPython's run in C;
this module keeps the API, the classes and the hooks. Nesting is bounded: more than MAX_DEPTH
(500) nested arrays/objects raise RecursionError with CPython's message ("maximum recursion
depth exceeded while decoding a JSON array from a unicode string" / "... while encoding a
JSON object"). CPython's own bound depends on the interpreter stack (about 1000); ours is a
fixed number so it is deterministic. Both the encoder and the decoder are iterative (explicit
stacks), so deep data never deepens the PVM call stack.

Does not: decode bytes other than UTF-8 (CPython also sniffs UTF-16/32), provide the
json.tool CLI or the json.encoder/json.decoder/json.scanner submodules, or accept a
user-defined JSONEncoder.iterencode override in dumps. Written for the PVM from the
documented behaviour; builtins only.
"""

import _json

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
        indent = self.indent
        if indent is not None and not isinstance(indent, str):
            indent = ' ' * indent
        return _json.encode(o, self.ensure_ascii, self.allow_nan, self.sort_keys, indent,
                            self.item_separator, self.key_separator, self.skipkeys,
                            self.check_circular, self.default)

    def iterencode(self, o, _one_shot=False):
        """Yield the JSON text for o in chunks (here: one chunk)."""
        yield self.encode(o)


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


def _skip_ws(s, idx):
    n = len(s)
    while idx < n and s[idx] in _WS:
        idx += 1
    return idx


def _parse_constant(name):
    return _CONSTANTS[name]


class JSONDecoder:
    """Simple JSON decoder with the hooks of CPython's."""

    def __init__(self, *, object_hook=None, parse_float=None, parse_int=None,
                 parse_constant=None, strict=True, object_pairs_hook=None):
        self.object_hook = object_hook
        self.parse_float = parse_float or float
        self.parse_int = parse_int or int
        self.parse_constant = parse_constant or _parse_constant
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
        # The default parsers are the scanner's own (None): no call per number.
        pf, pi, pc = self.parse_float, self.parse_int, self.parse_constant
        return _json.scan(s, idx, self.strict, self.object_hook, self.object_pairs_hook,
                          None if pf is float else pf, None if pi is int else pi,
                          None if pc is _parse_constant else pc, JSONDecodeError)


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
