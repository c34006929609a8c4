"""Canonical CBOR (RFC 8949 §4.2 core deterministic encoding), Cowboy's profile.

A port of ``crates/types/src/cbor.rs``: the encoder produces exactly the bytes the Rust encoder
produces, and the decoder accepts exactly what the Rust decoder accepts (rejecting everything
else with a :class:`~cowboy.errors.CborError` whose ``kind`` is the Rust ``CborErrorKind``
name and whose ``offset`` is the same byte offset).

The profile:

- integers use the shortest head; values beyond 64 bits are tag 2/3 bignums without leading
  zero bytes, at most 512 bytes of magnitude (``MAX_BIGNUM_BYTES``, the PVM's 4096-bit cap);
- definite lengths only; map keys strictly increasing in the bytewise order of their encodings;
- the only simple values are ``false``, ``true``, ``null``;
- floats are always IEEE-754 binary64 (head ``0xfb``), never shortened; NaN is
  ``0x7ff8000000000000``;
- nesting at most ``MAX_DEPTH`` (128) deep.

Python mapping:

============================  =====================================================
Python                        CBOR
============================  =====================================================
``None``, ``True``/``False``  null, true/false
``int``                       integer, or tag 2/3 bignum beyond 64 bits
``float``                     binary64
``str``                       text
``bytes``/``bytearray``       byte string (decodes as ``bytes``)
``list``/``tuple``            array (decodes as ``list``)
``dict``                      map, canonically ordered (decodes as ``dict``)
:class:`Map`                  map given as explicit ``(key, value)`` pairs
============================  =====================================================

Decoded map keys that are arrays become tuples and maps become :class:`Map` (hashable). A
decoded map whose keys collide as Python dict keys (``1``, ``1.0`` and ``True`` are one dict
key) or cannot be hashed is returned as a :class:`Map` so nothing is lost:
``encode(decode(b)) == b`` for every accepted ``b``.
"""

from __future__ import annotations

import math
import struct
from typing import Any, Iterable, List, Tuple

from .errors import CborError

__all__ = [
    "MAX_DEPTH",
    "MAX_BIGNUM_BYTES",
    "Map",
    "encode",
    "decode",
    "encode_hex",
    "decode_hex",
    "CborError",
]

#: Maximum nesting depth of arrays/maps/tags the decoder accepts.
MAX_DEPTH = 128
#: Maximum bignum magnitude in bytes (4096 bits).
MAX_BIGNUM_BYTES = 512

_CANONICAL_NAN = 0x7FF8_0000_0000_0000
_U64_MAX = (1 << 64) - 1


class Map:
    """A CBOR map given as an explicit sequence of ``(key, value)`` pairs.

    Use it to encode maps whose keys Python dicts cannot hold apart (``1`` and ``True``) or
    cannot hold at all (lists); the decoder returns one for such maps. Equality and hashing are
    by canonical encoding.
    """

    __slots__ = ("items",)

    def __init__(self, items: Iterable[Tuple[Any, Any]] = ()):
        if isinstance(items, dict):
            items = items.items()
        self.items: Tuple[Tuple[Any, Any], ...] = tuple((k, v) for k, v in items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Map, dict)):
            try:
                return encode(self) == encode(other)
            except CborError:
                return False
        return NotImplemented

    def __hash__(self) -> int:
        return hash(encode(self))

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return iter(self.items)

    def __repr__(self) -> str:
        return f"Map({list(self.items)!r})"

    def to_dict(self) -> dict:
        """The pairs as a dict (colliding keys keep the last value)."""
        return dict(self.items)


# ---------------------------------------------------------------------------------------------
# Encoder


def _head(out: bytearray, major: int, v: int) -> None:
    m = major << 5
    if v < 24:
        out.append(m | v)
    elif v <= 0xFF:
        out.append(m | 24)
        out.append(v)
    elif v <= 0xFFFF:
        out.append(m | 25)
        out += v.to_bytes(2, "big")
    elif v <= 0xFFFF_FFFF:
        out.append(m | 26)
        out += v.to_bytes(4, "big")
    else:
        out.append(m | 27)
        out += v.to_bytes(8, "big")


def _encode_int(out: bytearray, v: int) -> None:
    if v >= 0:
        major, n = 0, v
    else:
        major, n = 1, -1 - v
    if n <= _U64_MAX:
        _head(out, major, n)
        return
    mag = n.to_bytes((n.bit_length() + 7) // 8, "big")
    if len(mag) > MAX_BIGNUM_BYTES:
        raise CborError(
            "IntegerTooLarge",
            message=f"integer of {n.bit_length()} bits exceeds the {MAX_BIGNUM_BYTES * 8}-bit bignum limit",
        )
    _head(out, 6, 2 if major == 0 else 3)
    _head(out, 2, len(mag))
    out += mag


def _encode_into(v: Any, out: bytearray, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise CborError("DepthExceeded", message=f"nesting deeper than {MAX_DEPTH}")
    # bool before int: bool is a subclass of int.
    if v is None:
        out.append(0xF6)
    elif v is True:
        out.append(0xF5)
    elif v is False:
        out.append(0xF4)
    elif isinstance(v, int):
        _encode_int(out, int(v))
    elif isinstance(v, float):
        bits = _CANONICAL_NAN if math.isnan(v) else struct.unpack(">Q", struct.pack(">d", v))[0]
        out.append(0xFB)
        out += bits.to_bytes(8, "big")
    elif isinstance(v, str):
        try:
            raw = v.encode("utf-8")
        except UnicodeEncodeError as e:
            raise CborError("InvalidUtf8", message=f"text is not encodable as UTF-8: {e}") from None
        _head(out, 3, len(raw))
        out += raw
    elif isinstance(v, (bytes, bytearray, memoryview)):
        raw = bytes(v)
        _head(out, 2, len(raw))
        out += raw
    elif isinstance(v, (list, tuple)):
        _head(out, 4, len(v))
        for item in v:
            _encode_into(item, out, depth + 1)
    elif isinstance(v, (dict, Map)):
        pairs = v.items() if isinstance(v, dict) else v.items
        encoded: List[Tuple[bytes, bytes]] = []
        for k, val in pairs:
            kb = bytearray()
            _encode_into(k, kb, depth + 1)
            vb = bytearray()
            _encode_into(val, vb, depth + 1)
            encoded.append((bytes(kb), bytes(vb)))
        encoded.sort(key=lambda kv: kv[0])
        for a, b in zip(encoded, encoded[1:]):
            if a[0] == b[0]:
                raise CborError("DuplicateMapKey", message=f"duplicate map key 0x{a[0].hex()}")
        _head(out, 5, len(encoded))
        for kb, vb in encoded:
            out += kb
            out += vb
    else:
        raise CborError("UnsupportedType", message=f"cannot encode {type(v).__name__} as CBOR")


def encode(value: Any) -> bytes:
    """The canonical CBOR encoding of ``value``."""
    out = bytearray()
    _encode_into(value, out, 0)
    return bytes(out)


def encode_hex(value: Any) -> str:
    """``"0x"`` + hex of :func:`encode`."""
    return "0x" + encode(value).hex()


# ---------------------------------------------------------------------------------------------
# Decoder


class _Decoder:
    __slots__ = ("b", "pos")

    def __init__(self, b: bytes):
        self.b = b
        self.pos = 0

    def take(self, n: int, at: int) -> bytes:
        end = self.pos + n
        if end > len(self.b):
            raise CborError("UnexpectedEof", at, message="unexpected end of input")
        s = self.b[self.pos:end]
        self.pos = end
        return s

    def head(self) -> Tuple[int, int, int]:
        at = self.pos
        first = self.take(1, at)[0]
        major = first >> 5
        ai = first & 0x1F
        if ai <= 23:
            arg = ai
        elif ai <= 27:
            n = 1 << (ai - 24)
            arg = int.from_bytes(self.take(n, at), "big")
            # Floats (major 7, ai 25-27) carry bits, not an integer: no shortest-form rule.
            if major != 7:
                minimum = {24: 24, 25: 1 << 8, 26: 1 << 16, 27: 1 << 32}[ai]
                if arg < minimum:
                    raise CborError("NonShortestHead", at, message="integer or length not in shortest form")
        elif ai <= 30:
            raise CborError("ReservedAdditionalInfo", at, ai, message=f"reserved additional information {ai}")
        else:
            raise CborError("IndefiniteLength", at, message="indefinite-length item")
        return major, ai, arg

    def check_len(self, length: int, min_size: int, at: int) -> int:
        remaining = len(self.b) - self.pos
        if length * min_size > remaining:
            raise CborError("LengthExceedsInput", at, length, message=f"declared length {length} exceeds the input")
        return length

    def item(self, depth: int) -> Any:
        at = self.pos
        if depth > MAX_DEPTH:
            raise CborError("DepthExceeded", at, message=f"nesting deeper than {MAX_DEPTH}")
        major, ai, arg = self.head()
        if major == 0:
            return arg
        if major == 1:
            return -1 - arg
        if major == 2:
            n = self.check_len(arg, 1, at)
            return self.take(n, at)
        if major == 3:
            n = self.check_len(arg, 1, at)
            raw = self.take(n, at)
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError:
                raise CborError("InvalidUtf8", at, message="text is not valid UTF-8") from None
        if major == 4:
            n = self.check_len(arg, 1, at)
            return [self.item(depth + 1) for _ in range(n)]
        if major == 5:
            n = self.check_len(arg, 2, at)
            pairs = []
            prev = None
            for _ in range(n):
                key_start = self.pos
                key = self.item(depth + 1)
                kb = self.b[key_start:self.pos]
                if prev is not None:
                    if prev == kb:
                        raise CborError("DuplicateMapKey", key_start, message="duplicate map key")
                    if prev > kb:
                        raise CborError("MapKeysNotSorted", key_start, message="map keys are not in canonical order")
                prev = kb
                value = self.item(depth + 1)
                pairs.append((key, value))
            return _make_map(pairs)
        if major == 6:
            if arg not in (2, 3):
                raise CborError("UnsupportedTag", at, arg, message=f"unsupported tag {arg}")
            content_at = self.pos
            m, _, length = self.head()
            if m != 2:
                raise CborError("NonCanonicalBignum", content_at, message="non-canonical bignum")
            n = self.check_len(length, 1, content_at)
            mag = self.take(n, content_at)
            if n <= 8 or n > MAX_BIGNUM_BYTES or mag[0] == 0:
                raise CborError("NonCanonicalBignum", at, message="non-canonical bignum")
            v = int.from_bytes(mag, "big")
            return v if arg == 2 else -1 - v
        # major 7
        if ai == 20:
            return False
        if ai == 21:
            return True
        if ai == 22:
            return None
        if ai == 27:
            f = struct.unpack(">d", arg.to_bytes(8, "big"))[0]
            if math.isnan(f) and arg != _CANONICAL_NAN:
                raise CborError("NonCanonicalNan", at, message="NaN with a non-canonical payload")
            return f
        raise CborError("UnsupportedSimple", at, ai, message=f"unsupported simple value or float width {ai}")


def _freeze(v: Any) -> Any:
    """A hashable stand-in for a decoded value used as a map key (encodes identically)."""
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return Map((_freeze(k), x) for k, x in v.items())
    return v


def _make_map(pairs: List[Tuple[Any, Any]]) -> Any:
    frozen = [(_freeze(k), v) for k, v in pairs]
    try:
        d = dict(frozen)
    except TypeError:
        return Map(frozen)
    if len(d) != len(frozen):
        return Map(frozen)
    return d


def decode(data: bytes) -> Any:
    """Decodes exactly one canonical item occupying all of ``data``."""
    if isinstance(data, str):
        raise TypeError("decode() takes bytes; use decode_hex() for hex text")
    b = bytes(data)
    d = _Decoder(b)
    value = d.item(0)
    if d.pos != len(b):
        raise CborError("TrailingBytes", d.pos, message="trailing bytes after the item")
    return value


def decode_hex(text: str) -> Any:
    """:func:`decode` of hex text (with or without ``0x``)."""
    t = text[2:] if text[:2] in ("0x", "0X") else text
    return decode(bytes.fromhex(t))
