"""Hashes and addresses (ports of ``crates/types/src/hash.rs`` and ``address.rs``).

- ``keccak256`` is Ethereum's Keccak-256 (not NIST SHA3-256), from pycryptodome.
- An EOA address is the last 20 bytes of keccak256 of the 64-byte uncompressed public key.
- An actor address is CREATE2-style: ``last_20(keccak256(creator ‖ salt ‖ code_hash))`` with
  ``code_hash = keccak256(canonical source)`` (§1.2); see :func:`canonicalize_source`.
- Addresses display as EIP-55 checksummed hex; parsing accepts all-lowercase, all-uppercase or
  correctly checksummed input and rejects a wrong checksum.
"""

from __future__ import annotations

import unicodedata
from typing import Union

from Crypto.Hash import keccak as _keccak

from .errors import AddressError, CowboyError

__all__ = [
    "keccak256",
    "to_bytes",
    "hex0x",
    "address_bytes",
    "to_checksum_address",
    "is_system_address",
    "address_from_public_key",
    "canonicalize_source",
    "code_hash",
    "actor_address",
    "SourceError",
    "ZERO_ADDRESS",
]

AddressLike = Union[str, bytes, bytearray]

ZERO_ADDRESS = "0x" + "00" * 20


def keccak256(*parts: bytes) -> bytes:
    """keccak256 of the concatenation of ``parts``."""
    h = _keccak.new(digest_bits=256)
    for p in parts:
        h.update(bytes(p))
    return h.digest()


def hex0x(b: bytes) -> str:
    """Lowercase ``0x`` hex."""
    return "0x" + bytes(b).hex()


def to_bytes(v: Union[str, bytes, bytearray, memoryview], length: int | None = None, what: str = "value") -> bytes:
    """Bytes from bytes or (``0x``-optional) hex text, optionally of an exact length."""
    if isinstance(v, str):
        t = v[2:] if v[:2] in ("0x", "0X") else v
        try:
            b = bytes.fromhex(t)
        except ValueError:
            raise ValueError(f"{what}: not hex: {v!r}") from None
    elif isinstance(v, (bytes, bytearray, memoryview)):
        b = bytes(v)
    else:
        raise TypeError(f"{what}: expected bytes or hex text, got {type(v).__name__}")
    if length is not None and len(b) != length:
        raise ValueError(f"{what}: expected {length} bytes, got {len(b)}")
    return b


def _checksum(raw: bytes) -> str:
    lower = raw.hex()
    h = keccak256(lower.encode("ascii"))
    out = []
    for i, c in enumerate(lower):
        nibble = (h[i // 2] >> (4 if i % 2 == 0 else 0)) & 0xF
        out.append(c.upper() if c.isalpha() and nibble >= 8 else c)
    return "0x" + "".join(out)


def address_bytes(addr: AddressLike) -> bytes:
    """The 20 bytes of an address given as bytes or text (``0x`` optional), checking EIP-55
    when the text is mixed-case."""
    if isinstance(addr, (bytes, bytearray, memoryview)):
        b = bytes(addr)
        if len(b) != 20:
            raise AddressError(f"address must be 20 bytes, got {len(b)}")
        return b
    if not isinstance(addr, str):
        raise AddressError(f"expected an address, got {type(addr).__name__}")
    digits = addr[2:] if addr[:2] in ("0x", "0X") else addr
    if len(digits) != 40:
        raise AddressError(f"address must be 40 hex digits, got {len(digits)}")
    if not all(c in "0123456789abcdefABCDEF" for c in digits):
        raise AddressError("address contains a non-hex character")
    b = bytes.fromhex(digits)
    has_lower = any(c.islower() for c in digits)
    has_upper = any(c.isupper() for c in digits)
    if has_lower and has_upper and _checksum(b)[2:] != digits:
        raise AddressError("address has an invalid EIP-55 checksum")
    return b


def to_checksum_address(addr: AddressLike) -> str:
    """EIP-55 checksummed ``0x`` hex of an address."""
    return _checksum(address_bytes(addr))


def is_system_address(addr: AddressLike) -> bool:
    """True for the reserved system range ``0x…0000``–``0x…0100`` (§1.3)."""
    b = address_bytes(addr)
    return b[:18] == bytes(18) and int.from_bytes(b[18:], "big") <= 0x100


def address_from_public_key(key: bytes) -> str:
    """The EOA address of an uncompressed SEC1 public key (65 bytes starting 0x04, or the 64
    coordinate bytes)."""
    key = bytes(key)
    if len(key) == 65 and key[0] == 0x04:
        coords = key[1:]
    elif len(key) == 64:
        coords = key
    else:
        raise ValueError("expected an uncompressed public key (65 bytes with 0x04, or 64 bytes)")
    return _checksum(keccak256(coords)[12:])


class SourceError(CowboyError, ValueError):
    """Actor source that is not valid UTF-8; ``offset`` is the first invalid byte."""

    def __init__(self, offset: int):
        self.offset = offset
        super().__init__(f"actor source is not valid UTF-8 (first bad byte at offset {offset})")


def canonicalize_source(source: Union[str, bytes]) -> str:
    """Canonical Python source for hashing and storage (§1.2): valid UTF-8, a leading BOM
    removed, CRLF and lone CR turned into LF, then Unicode NFC."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw = bytes(source)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise SourceError(e.start) from None
    else:
        text = source
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", text)


def code_hash(canonical_source: str) -> bytes:
    """keccak256 of canonical source (pass it through :func:`canonicalize_source` first)."""
    return keccak256(canonical_source.encode("utf-8"))


def actor_address(creator: AddressLike, salt: bytes, code_hash_: bytes) -> str:
    """The address of an actor deployed by ``creator`` with a 32-byte ``salt`` and
    ``code_hash`` (§1.2), checksummed."""
    salt = to_bytes(salt, 32, "salt")
    ch = to_bytes(code_hash_, 32, "code_hash")
    return _checksum(keccak256(address_bytes(creator), salt, ch)[12:])
