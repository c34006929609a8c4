"""Transactions and payloads, byte-identical to ``crates/types/src/tx.rs``.

Wire format (§2.5): the canonical CBOR array
``[chain_id, nonce, to, value, cycles_limit, cells_limit, max_fee_per_cycle, max_fee_per_cell,
tip_per_cycle, tip_per_cell, access_list, payload, signature]`` where ``to`` is 20 bytes or null
(deploy), ``access_list`` is null or ``[[address, [key, …]], …]``, ``payload`` is bytes and
``signature`` is null or ``[y_parity, r, s]`` (32-byte ``r``, ``s``, low-s).

The signing hash is ``keccak256(CBOR(tx with signature = null))``; the transaction hash is
``keccak256(CBOR(signed tx))``.

Payloads: with ``to`` set, empty bytes are a transfer and ``CBOR([handler, args])`` a call; with
``to = null``, ``CBOR([source, salt(32 bytes), init_args])`` is a deploy. ``args`` is an array
(positional) or a text-keyed map (keyword arguments).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, List, Optional, Tuple, Union

import coincurve

from . import cbor
from .crypto import address_bytes, keccak256, to_bytes, to_checksum_address
from .errors import CborError, SignatureError, TransactionError

__all__ = [
    "Signature",
    "AccessListEntry",
    "Transaction",
    "Payload",
    "Transfer",
    "Deploy",
    "Call",
    "encode_args",
    "sign_hash",
    "recover",
    "MAX_TX_SIZE_BYTES",
    "SECP256K1_N",
]

#: Genesis default maximum transaction size (128 KiB).
MAX_TX_SIZE_BYTES = 128 * 1024
#: Order of the secp256k1 group.
SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
_HALF_N = SECP256K1_N // 2
_U64 = 1 << 64
_U128 = 1 << 128

FIELD_NAMES = (
    "chain_id", "nonce", "to", "value", "cycles_limit", "cells_limit", "max_fee_per_cycle",
    "max_fee_per_cell", "tip_per_cycle", "tip_per_cell", "access_list", "payload", "signature",
)


@dataclass(frozen=True)
class Signature:
    """A recoverable secp256k1 signature ``[y_parity, r, s]``."""

    y_parity: int
    r: bytes
    s: bytes

    def to_cbor(self) -> list:
        return [self.y_parity, bytes(self.r), bytes(self.s)]

    def recover(self, msg_hash: bytes) -> str:
        """The signer's checksummed address; enforces parity, range and low-s (EIP-2)."""
        return recover(self, msg_hash)


def sign_hash(private_key: bytes, msg_hash: bytes) -> Signature:
    """Signs a 32-byte prehash; the result is always low-s."""
    msg_hash = to_bytes(msg_hash, 32, "hash")
    try:
        key = coincurve.PrivateKey(bytes(private_key))
    except Exception:
        raise SignatureError("private key out of range") from None
    sig = key.sign_recoverable(msg_hash, hasher=None)
    r, s, recid = sig[:32], sig[32:64], sig[64]
    s_int = int.from_bytes(s, "big")
    if s_int > _HALF_N:  # libsecp256k1 already signs low-s; normalise defensively
        s = (SECP256K1_N - s_int).to_bytes(32, "big")
        recid ^= 1
    # Recovery ids 2/3 (x reduced mod n) have probability ~2^-127; k256 (the node) drops the
    # bit the same way: y_parity is the low bit.
    return Signature(recid & 1, bytes(r), bytes(s))


def recover(sig: Signature, msg_hash: bytes) -> str:
    """The checksummed address that produced ``sig`` over ``msg_hash``, with the node's checks."""
    msg_hash = to_bytes(msg_hash, 32, "hash")
    if sig.y_parity not in (0, 1):
        raise SignatureError(f"y_parity must be 0 or 1, got {sig.y_parity}")
    r = int.from_bytes(sig.r, "big")
    s = int.from_bytes(sig.s, "big")
    if len(sig.r) != 32 or len(sig.s) != 32 or not (0 < r < SECP256K1_N) or not (0 < s < SECP256K1_N):
        raise SignatureError("signature r or s out of range")
    if s > _HALF_N:
        raise SignatureError("signature s is not low (s > n/2)")
    try:
        pub = coincurve.PublicKey.from_signature_and_message(
            bytes(sig.r) + bytes(sig.s) + bytes([sig.y_parity]), msg_hash, hasher=None
        )
    except Exception:
        raise SignatureError("no public key recovers from signature") from None
    return to_checksum_address(keccak256(pub.format(compressed=False)[1:])[12:])


@dataclass(frozen=True)
class AccessListEntry:
    """An address and the raw storage keys the transaction may touch there."""

    address: str
    storage_keys: Tuple[bytes, ...] = ()


@dataclass
class Transaction:
    """A Cowboy transaction (§2.1). Amounts are ints in the smallest unit (wei)."""

    chain_id: int
    nonce: int
    to: Optional[str]
    value: int = 0
    cycles_limit: int = 0
    cells_limit: int = 0
    max_fee_per_cycle: int = 0
    max_fee_per_cell: int = 0
    tip_per_cycle: int = 0
    tip_per_cell: int = 0
    access_list: Optional[List[AccessListEntry]] = None
    payload: bytes = b""
    signature: Optional[Signature] = None

    def to_cbor(self, with_signature: bool = True) -> list:
        """The CBOR array (as Python values), with the signature or with null."""
        _check_range(self)
        access_list = None
        if self.access_list is not None:
            access_list = [
                [address_bytes(e.address), [bytes(k) for k in e.storage_keys]] for e in self.access_list
            ]
        sig = self.signature.to_cbor() if (with_signature and self.signature is not None) else None
        return [
            self.chain_id,
            self.nonce,
            None if self.to is None else address_bytes(self.to),
            self.value,
            self.cycles_limit,
            self.cells_limit,
            self.max_fee_per_cycle,
            self.max_fee_per_cell,
            self.tip_per_cycle,
            self.tip_per_cell,
            access_list,
            bytes(self.payload),
            sig,
        ]

    def encode(self) -> bytes:
        """Canonical encoding (with the signature if present)."""
        return cbor.encode(self.to_cbor(True))

    def encode_unsigned(self) -> bytes:
        """Canonical encoding with ``signature = null``."""
        return cbor.encode(self.to_cbor(False))

    def signing_hash(self) -> bytes:
        """``keccak256(CBOR(tx with signature = null))``."""
        return keccak256(self.encode_unsigned())

    def hash(self) -> bytes:
        """``keccak256`` of the full encoding: the transaction's identity."""
        return keccak256(self.encode())

    def hash_hex(self) -> str:
        return "0x" + self.hash().hex()

    def sign(self, private_key: bytes) -> "Transaction":
        """Signs in place with a 32-byte private key and returns ``self``."""
        self.signature = sign_hash(private_key, self.signing_hash())
        return self

    def signed(self, private_key: bytes) -> "Transaction":
        """A signed copy."""
        return replace(self).sign(private_key)

    def sender(self) -> str:
        """The sender recovered from the signature (checksummed)."""
        if self.signature is None:
            raise TransactionError("Unsigned", "transaction is not signed")
        try:
            return recover(self.signature, self.signing_hash())
        except SignatureError as e:
            raise TransactionError("Signature", f"field signature: {e}", "signature") from None

    @staticmethod
    def decode(data: bytes, max_size: int = MAX_TX_SIZE_BYTES) -> "Transaction":
        """Decodes canonical bytes, rejecting anything else with a typed error (the kinds of
        the Rust ``TxError``). The size is checked before any parsing."""
        data = bytes(data)
        if len(data) > max_size:
            raise TransactionError(
                "TooLarge", f"transaction is {len(data)} bytes, larger than the {max_size}-byte limit"
            )
        try:
            fields = cbor.decode(data)
        except CborError as e:
            raise TransactionError("Cbor", f"transaction is not canonical CBOR: {e}") from None
        if not isinstance(fields, list):
            raise TransactionError("NotAnArray", "transaction must be a CBOR array")
        if len(fields) != 13:
            raise TransactionError("WrongArity", f"transaction must have 13 fields, got {len(fields)}")
        (chain_id, nonce, to, value, cyc, cel, mfc, mfb, tc, tb, al, payload, sig) = fields
        tx = Transaction(
            chain_id=_uint(chain_id, "chain_id", _U64),
            nonce=_uint(nonce, "nonce", _U64),
            to=None if to is None else _address(to, "to"),
            value=_uint(value, "value", _U128),
            cycles_limit=_uint(cyc, "cycles_limit", _U64),
            cells_limit=_uint(cel, "cells_limit", _U64),
            max_fee_per_cycle=_uint(mfc, "max_fee_per_cycle", _U128),
            max_fee_per_cell=_uint(mfb, "max_fee_per_cell", _U128),
            tip_per_cycle=_uint(tc, "tip_per_cycle", _U128),
            tip_per_cell=_uint(tb, "tip_per_cell", _U128),
            access_list=_access_list(al),
            payload=_payload_bytes(payload),
            signature=_signature(sig),
        )
        return tx


def _check_range(tx: Transaction) -> None:
    for name, bound in (
        ("chain_id", _U64), ("nonce", _U64), ("value", _U128), ("cycles_limit", _U64),
        ("cells_limit", _U64), ("max_fee_per_cycle", _U128), ("max_fee_per_cell", _U128),
        ("tip_per_cycle", _U128), ("tip_per_cell", _U128),
    ):
        v = getattr(tx, name)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < bound:
            raise TransactionError("FieldType", f"field {name}: expected unsigned integer below 2^{bound.bit_length() - 1}", name)


def _field_type(field_name: str, expected: str) -> TransactionError:
    return TransactionError("FieldType", f"field {field_name}: expected {expected}", field_name)


def _uint(v: Any, name: str, bound: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < bound:
        raise _field_type(name, f"unsigned integer below 2^{bound.bit_length() - 1}")
    return v


def _address(v: Any, name: str) -> str:
    if not isinstance(v, bytes):
        raise _field_type(name, "20-byte address")
    if len(v) != 20:
        raise TransactionError("AddressLength", f"field {name}: address must be 20 bytes, got {len(v)}", name)
    return to_checksum_address(v)


def _payload_bytes(v: Any) -> bytes:
    if not isinstance(v, bytes):
        raise _field_type("payload", "byte string")
    return v


def _access_list(v: Any) -> Optional[List[AccessListEntry]]:
    expected = "null or array of [address, [storage key bytes, ...]]"
    if v is None:
        return None
    if not isinstance(v, list):
        raise _field_type("access_list", expected)
    out = []
    for entry in v:
        if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[1], list):
            raise _field_type("access_list", expected)
        keys = entry[1]
        if not all(isinstance(k, bytes) for k in keys):
            raise _field_type("access_list", expected)
        out.append(AccessListEntry(_address(entry[0], "access_list"), tuple(keys)))
    return out


def _signature(v: Any) -> Optional[Signature]:
    expected = "null or [y_parity, r (32 bytes), s (32 bytes)]"
    if v is None:
        return None
    if not isinstance(v, list) or len(v) != 3:
        raise _field_type("signature", expected)
    parity, r, s = v
    if isinstance(parity, bool) or not isinstance(parity, int) or not 0 <= parity < _U64:
        raise _field_type("signature", expected)
    if parity > 1:
        raise TransactionError("Signature", f"field signature: y_parity must be 0 or 1, got {min(parity, 255)}", "signature")
    for w in (r, s):
        if not isinstance(w, bytes):
            raise _field_type("signature", expected)
        if len(w) != 32:
            raise _field_type("signature", "r and s of exactly 32 bytes")
    return Signature(parity, r, s)


# ---------------------------------------------------------------------------------------------
# Payloads


def encode_args(args: Any) -> Any:
    """Handler arguments as a CBOR item: ``None`` → ``[]``, a list/tuple → array (positional),
    a dict → map (keyword arguments; keys must be text)."""
    if args is None:
        return []
    if isinstance(args, (list, tuple)):
        return list(args)
    if isinstance(args, dict):
        for k in args:
            if not isinstance(k, str):
                raise TypeError(f"keyword argument names must be str, got {type(k).__name__}")
        return dict(args)
    raise TypeError("args must be a list/tuple (positional), a dict (keyword) or None")


@dataclass(frozen=True)
class Transfer:
    """Move value between accounts (empty payload with ``to`` set)."""

    def encode(self) -> bytes:
        return b""


@dataclass(frozen=True)
class Deploy:
    """Deploy an actor (``to = null``): ``[source, salt, init_args]``."""

    source: str
    salt: bytes
    init_args: Any = field(default_factory=list)

    def encode(self) -> bytes:
        return cbor.encode([self.source, to_bytes(self.salt, 32, "salt"), self.init_args])


@dataclass(frozen=True)
class Call:
    """Call a handler of an actor: ``[handler, args]``."""

    handler: str
    args: Any = field(default_factory=list)

    def encode(self) -> bytes:
        return cbor.encode([self.handler, self.args])


Payload = Union[Transfer, Deploy, Call]


def _check_args(a: Any) -> None:
    if isinstance(a, list):
        return
    if isinstance(a, dict) and all(isinstance(k, str) for k in a):
        return
    raise TransactionError("Shape", "payload: arguments must be an array or a map with text keys")


def decode_payload(has_recipient: bool, data: bytes) -> Payload:
    """Interprets a transaction's payload given whether it has a recipient (``Payload::decode``)."""
    data = bytes(data)
    if has_recipient and not data:
        return Transfer()
    try:
        items = cbor.decode(data)
    except CborError as e:
        raise TransactionError("Cbor", f"payload is not canonical CBOR: {e}") from None
    if not isinstance(items, list):
        raise TransactionError("Shape", "payload: expected a CBOR array")
    if has_recipient:
        if len(items) != 2:
            raise TransactionError("Shape", "payload: a call is [handler, args]")
        handler, args = items
        if not isinstance(handler, str):
            raise TransactionError("Shape", "payload: handler name must be text")
        _check_args(args)
        return Call(handler, args)
    if len(items) != 3:
        raise TransactionError("Shape", "payload: a deploy is [source, salt, init_args]")
    source, salt, init_args = items
    if not isinstance(source, str):
        raise TransactionError("Shape", "payload: source must be text")
    if not isinstance(salt, bytes) or len(salt) != 32:
        raise TransactionError("Shape", "payload: salt must be 32 bytes")
    _check_args(init_args)
    return Deploy(source, salt, init_args)
