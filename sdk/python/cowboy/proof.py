"""Cowboy state proofs, verified with nothing but a state root; and inclusion proofs of a
transaction or receipt in a block, verified with nothing but its header (:func:`verify_inclusion`,
``inclusion.rs``).

A port of ``crates/proof-verifier`` (``keys.rs``, ``account.rs``, ``proof.rs``, ``merkle.rs``)
using the ``blake3`` package. A proof shows that one operation of the state's QMDB log is
active under a root: the ``Update(key, value, next_key)`` of the key (inclusion), an active
update whose cyclic span ``(k, next)`` strictly contains the key (exclusion), or the last
commit of an empty state.

>>> verify_storage(root, address, key, value, proof)   # raises ProofError, else None

Every rejection is a :class:`~cowboy.errors.ProofError` whose ``kind`` is the Rust
``VerifyError`` variant: ``Malformed`` (``detail`` names the decoding problem),
``ClaimMismatch``, ``Inactive``, ``RootMismatch``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple, Union

import blake3 as _blake3_mod

from .crypto import address_bytes, keccak256
from .errors import ProofError

__all__ = [
    "Account",
    "StateProof",
    "OperationProof",
    "Present",
    "AbsentInSpan",
    "Empty",
    "account_key",
    "storage_key",
    "code_key",
    "verify_key",
    "verify_account",
    "verify_storage",
    "verify_code",
    "encode_update",
    "encode_commit",
    "list_root",
    "Inclusion",
    "verify_inclusion",
    "ProofError",
]

# ---------------------------------------------------------------------------------------------
# keys.rs

ACCOUNT_PREFIX = 0x01
STORAGE_PREFIX = 0x02
CODE_PREFIX = 0x03


def _blake3(*parts: bytes) -> bytes:
    h = _blake3_mod.blake3()
    for p in parts:
        h.update(p)
    return h.digest()


def account_key(address) -> bytes:
    """``0x01 ‖ address`` (21 bytes)."""
    return bytes([ACCOUNT_PREFIX]) + address_bytes(address)


def storage_key(address, key: bytes) -> bytes:
    """``0x02 ‖ blake3(address ‖ key)`` (33 bytes)."""
    return bytes([STORAGE_PREFIX]) + _blake3(address_bytes(address), bytes(key))


def code_key(code_hash: bytes) -> bytes:
    """``0x03 ‖ code_hash`` (33 bytes)."""
    code_hash = bytes(code_hash)
    if len(code_hash) != 32:
        raise ValueError("code hash must be 32 bytes")
    return bytes([CODE_PREFIX]) + code_hash


# ---------------------------------------------------------------------------------------------
# account.rs

ACCOUNT_VERSION = 1
MAX_METADATA_LEN = 4096


class AccountError(ValueError):
    """Bytes that are not a valid account record (``kind`` as the Rust ``AccountError``)."""

    def __init__(self, kind: str, detail=None):
        self.kind = kind
        self.detail = detail
        super().__init__(kind if detail is None else f"{kind}({detail})")


@dataclass
class Account:
    """The account record stored under ``0x01 ‖ address`` (version 1)."""

    balance: int = 0
    nonce: int = 0
    code_hash: Optional[bytes] = None
    storage_items: int = 0
    storage_bytes: int = 0
    metadata: bytes = b""

    def encode(self) -> bytes:
        out = bytearray([ACCOUNT_VERSION])
        out += self.balance.to_bytes(16, "big")
        out += self.nonce.to_bytes(8, "big")
        if self.code_hash is None:
            out.append(0)
        else:
            out.append(1)
            out += bytes(self.code_hash)
        out += self.storage_items.to_bytes(8, "big")
        out += self.storage_bytes.to_bytes(8, "big")
        out += min(len(self.metadata), 0xFFFFFFFF).to_bytes(4, "big")
        out += bytes(self.metadata)
        return bytes(out)

    @staticmethod
    def decode(data: bytes) -> "Account":
        r = _Reader(bytes(data), AccountError)
        version = r.u8("version")
        if version != ACCOUNT_VERSION:
            raise AccountError("UnknownVersion", version)
        balance = int.from_bytes(r.take(16, "balance"), "big")
        nonce = int.from_bytes(r.take(8, "nonce"), "big")
        flag = r.u8("has_code")
        if flag == 0:
            code_hash = None
        elif flag == 1:
            code_hash = r.take(32, "code_hash")
        else:
            raise AccountError("BadCodeFlag", flag)
        storage_items = int.from_bytes(r.take(8, "storage_items"), "big")
        storage_bytes = int.from_bytes(r.take(8, "storage_bytes"), "big")
        length = int.from_bytes(r.take(4, "metadata_len"), "big")
        if length > MAX_METADATA_LEN:
            raise AccountError("MetadataTooLong", length)
        metadata = r.take(length, "metadata")
        if r.rest:
            raise AccountError("TrailingBytes", len(r.rest))
        return Account(balance, nonce, code_hash, storage_items, storage_bytes, metadata)


class _Reader:
    def __init__(self, data: bytes, err):
        self.rest = data
        self.err = err

    def take(self, n: int, field: str) -> bytes:
        if len(self.rest) < n:
            raise self.err("Truncated", field)
        head, self.rest = self.rest[:n], self.rest[n:]
        return head

    def u8(self, field: str) -> int:
        return self.take(1, field)[0]

    def u64(self, field: str) -> int:
        return int.from_bytes(self.take(8, field), "big")

    def bytes_(self, field: str) -> bytes:
        length = int.from_bytes(self.take(4, field), "big")
        if length > MAX_FIELD_LEN:
            raise self.err("FieldTooLong", field)
        return self.take(length, field)


# ---------------------------------------------------------------------------------------------
# proof.rs

PROOF_VERSION = 1
MAX_DIGESTS = 128
MAX_FIELD_LEN = 16 << 20
CHUNK_BYTES = 32
UPDATE_CONTEXT = 0xD2
COMMIT_CONTEXT = 0xD3


class _Malformed(Exception):
    def __init__(self, kind: str, detail=None):
        self.kind = kind
        self.detail = detail


def _malformed(kind: str, detail=None) -> ProofError:
    return ProofError("Malformed", kind if detail is None else f"{kind}({detail})")


@dataclass
class OperationProof:
    """The Merkle part of a proof: one operation of the log is active under a root."""

    loc: int
    chunk: bytes
    leaves: int
    inactive_peaks: int
    digests: List[bytes]
    partial_chunk_digest: Optional[bytes]
    ops_root: bytes


@dataclass
class Present:
    """Inclusion: the proven operation is ``Update(key, value, next_key)`` of the queried key."""

    next_key: bytes


@dataclass
class AbsentInSpan:
    """Exclusion: the active update whose span contains the queried key."""

    key: bytes
    value: bytes
    next_key: bytes


@dataclass
class Empty:
    """Exclusion in an empty state: the last commit's metadata."""

    metadata: Optional[bytes]


Claim = Union[Present, AbsentInSpan, Empty]


@dataclass
class StateProof:
    """A decoded state proof (wire format version 1)."""

    op: OperationProof
    claim: Claim

    def encode(self) -> bytes:
        op = self.op
        out = bytearray([PROOF_VERSION])
        out.append(0 if isinstance(self.claim, Present) else 1 if isinstance(self.claim, AbsentInSpan) else 2)
        out += op.loc.to_bytes(8, "big")
        out += op.chunk
        out += op.leaves.to_bytes(8, "big")
        out += op.inactive_peaks.to_bytes(8, "big")
        out += min(len(op.digests), 0xFFFF).to_bytes(2, "big")
        for d in op.digests:
            out += d
        if op.partial_chunk_digest is None:
            out.append(0)
        else:
            out.append(1)
            out += op.partial_chunk_digest
        out += op.ops_root
        c = self.claim
        if isinstance(c, Present):
            _put_bytes(out, c.next_key)
        elif isinstance(c, AbsentInSpan):
            _put_bytes(out, c.key)
            _put_bytes(out, c.value)
            _put_bytes(out, c.next_key)
        else:
            if c.metadata is None:
                out.append(0)
            else:
                out.append(1)
                _put_bytes(out, c.metadata)
        return bytes(out)

    @staticmethod
    def decode(data: bytes) -> "StateProof":
        """Decodes a proof; malformed input raises ``ProofError('Malformed', …)``."""
        try:
            return StateProof._decode(bytes(data))
        except _Malformed as e:
            raise _malformed(e.kind, e.detail) from None

    @staticmethod
    def _decode(data: bytes) -> "StateProof":
        r = _Reader(data, _Malformed)
        version = r.u8("version")
        if version != PROOF_VERSION:
            raise _Malformed("UnknownVersion", version)
        kind = r.u8("kind")
        if kind > 2:
            raise _Malformed("UnknownKind", kind)
        loc = r.u64("loc")
        chunk = r.take(CHUNK_BYTES, "chunk")
        leaves = r.u64("leaves")
        inactive = r.u64("inactive_peaks")
        n = int.from_bytes(r.take(2, "n_digests"), "big")
        if n > MAX_DIGESTS:
            raise _Malformed("TooManyDigests", n)
        digests = [r.take(32, "digests") for _ in range(n)]
        flag = r.u8("has_partial")
        if flag == 0:
            partial = None
        elif flag == 1:
            partial = r.take(32, "partial")
        else:
            raise _Malformed("BadFlag", "has_partial")
        ops_root = r.take(32, "ops_root")
        claim: Claim
        if kind == 0:
            claim = Present(r.bytes_("next_key"))
        elif kind == 1:
            claim = AbsentInSpan(r.bytes_("span_key"), r.bytes_("span_value"), r.bytes_("span_next_key"))
        else:
            f = r.u8("has_metadata")
            if f == 0:
                claim = Empty(None)
            elif f == 1:
                claim = Empty(r.bytes_("metadata"))
            else:
                raise _Malformed("BadFlag", "has_metadata")
        if r.rest:
            raise _Malformed("TrailingBytes", len(r.rest))
        return StateProof(OperationProof(loc, chunk, leaves, inactive, digests, partial, ops_root), claim)

    def element_for(self, state_key: bytes, claimed: Optional[bytes]) -> bytes:
        """The encoded log operation this proof must show active for "``state_key`` maps to
        ``claimed``" (None = absent)."""
        c = self.claim
        if isinstance(c, Present) and claimed is not None:
            return encode_update(state_key, claimed, c.next_key)
        if isinstance(c, AbsentInSpan) and claimed is None:
            if c.key == state_key or not _in_cyclic_span(c.key, c.next_key, state_key):
                raise ProofError("ClaimMismatch")
            return encode_update(c.key, c.value, c.next_key)
        if isinstance(c, Empty) and claimed is None:
            return encode_commit(c.metadata, self.op.loc)
        raise ProofError("ClaimMismatch")


def _in_cyclic_span(start: bytes, end: bytes, key: bytes) -> bool:
    if start < end:
        return start <= key < end
    return key >= start or key < end


def _put_varint(out: bytearray, v: int) -> None:
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)


def _put_bytes(out: bytearray, b: bytes) -> None:
    out += min(len(b), 0xFFFFFFFF).to_bytes(4, "big")
    out += b


def encode_update(key: bytes, value: bytes, next_key: bytes) -> bytes:
    """QMDB's encoding of ``Update(key, value, next_key)``."""
    out = bytearray([UPDATE_CONTEXT])
    for f in (key, value, next_key):
        _put_varint(out, len(f))
        out += f
    return bytes(out)


def encode_commit(metadata: Optional[bytes], floor: int) -> bytes:
    """QMDB's encoding of ``CommitFloor(metadata, floor)``."""
    out = bytearray([COMMIT_CONTEXT])
    if metadata is None:
        out.append(0)
    else:
        out.append(1)
        _put_varint(out, len(metadata))
        out += metadata
    _put_varint(out, floor)
    return bytes(out)


# ---------------------------------------------------------------------------------------------
# merkle.rs

_MMR_FAMILY_DOMAIN = 0
_BACKWARD_FOLD_DOMAIN = 1
_CHUNK_BITS = CHUNK_BYTES * 8
_GRAFTING_HEIGHT = 8  # log2(256)
_MAX_LEAVES = 1 << 62


def _u64(v: int) -> bytes:
    return v.to_bytes(8, "big")


@dataclass(frozen=True)
class _Subtree:
    pos: int
    height: int
    leaf_start: int

    def leaf_end(self) -> int:
        return self.leaf_start + (1 << self.height)

    def contains(self, loc: int) -> bool:
        return self.leaf_start <= loc < self.leaf_end()

    def children(self) -> Tuple["_Subtree", "_Subtree"]:
        child = self.height - 1
        return (
            _Subtree(self.pos - (1 << self.height), child, self.leaf_start),
            _Subtree(self.pos - 1, child, self.leaf_start + (1 << child)),
        )


def _peaks(leaves: int) -> List[_Subtree]:
    out = []
    nodes_before = 0
    leaves_before = 0
    for height in range(63, -1, -1):
        if not leaves & (1 << height):
            continue
        size = (1 << (height + 1)) - 1
        out.append(_Subtree(nodes_before + size - 1, height, leaves_before))
        nodes_before += size
        leaves_before += 1 << height
    return out


class _Grafter:
    def __init__(self, chunk: bytes, chunk_index: int, graftable_chunks: int):
        self.chunk = chunk
        self.chunk_index = chunk_index
        self.graftable_chunks = graftable_chunks
        self.zero_chunk = not any(chunk)

    def node(self, node: _Subtree, left: bytes, right: bytes) -> bytes:
        ops = _blake3(_u64(node.pos), left, right)
        if node.height != _GRAFTING_HEIGHT:
            return ops
        chunk_index = node.leaf_start >> _GRAFTING_HEIGHT
        if chunk_index >= self.graftable_chunks or chunk_index != self.chunk_index or self.zero_chunk:
            return ops
        return _blake3(self.chunk, ops)

    def rebuild(self, node: _Subtree, loc: int, element: bytes, siblings: List[bytes], cursor: List[int]) -> bytes:
        if not node.contains(loc):
            if cursor[0] >= len(siblings):
                raise ProofError("RootMismatch")
            d = siblings[cursor[0]]
            cursor[0] += 1
            return d
        if node.height == 0:
            return _blake3(_u64(node.pos), element)
        left, right = node.children()
        l = self.rebuild(left, loc, element, siblings, cursor)
        r = self.rebuild(right, loc, element, siblings, cursor)
        return self.node(node, l, r)


def verify_active_operation(proof: OperationProof, element: bytes, root: bytes) -> None:
    """Checks that ``element`` (an encoded log operation) is active at ``proof.loc`` under
    ``root``; raises :class:`ProofError` otherwise."""
    loc, leaves = proof.loc, proof.leaves
    if leaves > _MAX_LEAVES or loc >= leaves:
        raise ProofError("RootMismatch")
    bit = loc % _CHUNK_BITS
    if proof.chunk[bit // 8] & (1 << (bit % 8)) == 0:
        raise ProofError("Inactive")

    chunk_index = loc // _CHUNK_BITS
    complete_chunks = leaves // _CHUNK_BITS
    next_bit = leaves % _CHUNK_BITS
    if next_bit != 0 and proof.partial_chunk_digest is not None:
        if chunk_index == complete_chunks and proof.partial_chunk_digest != _blake3(proof.chunk):
            raise ProofError("RootMismatch")
        partial = proof.partial_chunk_digest
    elif next_bit == 0 and proof.partial_chunk_digest is None:
        partial = None
    else:
        raise ProofError("RootMismatch")

    peaks = _peaks(leaves)
    inactive = proof.inactive_peaks
    if inactive > len(peaks):
        raise ProofError("RootMismatch")
    range_index = next((i for i, p in enumerate(peaks) if p.contains(loc)), None)
    if range_index is None:
        raise ProofError("RootMismatch")
    range_peak = peaks[range_index]
    before = range_index
    after = len(peaks) - range_index - 1

    fold_count = min(inactive, before)
    prefix_listed = before - fold_count
    after_listed = min(max(inactive - (before + 1), 0), after)
    has_suffix = after > after_listed
    path_len = range_peak.height
    required = int(fold_count > 0) + prefix_listed + after_listed + int(has_suffix) + path_len
    if len(proof.digests) != required:
        raise ProofError("RootMismatch")

    head = proof.digests[: required - path_len]
    siblings = proof.digests[required - path_len:]
    grafter = _Grafter(proof.chunk, chunk_index, complete_chunks)
    cursor = [0]
    peak_digest = grafter.rebuild(range_peak, loc, element, siblings, cursor)
    if cursor[0] != len(siblings):
        raise ProofError("RootMismatch")

    listed_before = int(fold_count > 0) + prefix_listed
    peak_digests = list(head[:listed_before]) + [peak_digest] + list(head[listed_before:])
    to_fold = inactive if fold_count == 0 else inactive - fold_count + 1
    grafted_root = _bag_peaks(leaves, to_fold, inactive, peak_digests)

    if partial is None:
        canonical = _blake3(proof.ops_root, grafted_root)
    else:
        canonical = _blake3(proof.ops_root, grafted_root, _u64(next_bit), partial)
    if canonical != root:
        raise ProofError("RootMismatch")


def _bag_peaks(leaves: int, to_fold: int, committed_inactive: int, peaks: List[bytes]) -> bytes:
    domain = bytes([_MMR_FAMILY_DOMAIN, _BACKWARD_FOLD_DOMAIN])
    if not peaks:
        raise ProofError("RootMismatch")
    first, rest = peaks[0], peaks[1:]
    forward = max(to_fold - 1, 0)
    if forward > len(rest):
        raise ProofError("RootMismatch")
    fold, backward = rest[:forward], rest[forward:]
    acc = first
    for peak in fold:
        acc = _blake3(acc, peak)
    if not backward:
        folded = acc
    else:
        bag = backward[-1]
        for peak in reversed(backward[:-1]):
            bag = _blake3(peak, bag)
        folded = _blake3(acc, bag)
    if committed_inactive == 0:
        return _blake3(domain, _u64(leaves), folded)
    return _blake3(domain, _u64(leaves), _u64(committed_inactive), folded)


# ---------------------------------------------------------------------------------------------
# lib.rs


def _digest(root, what: str = "root") -> bytes:
    if isinstance(root, str):
        t = root[2:] if root[:2] in ("0x", "0X") else root
        root = bytes.fromhex(t)
    root = bytes(root)
    if len(root) != 32:
        raise ValueError(f"{what} must be 32 bytes")
    return root


def verify_key(root, state_key: bytes, claimed: Optional[bytes], proof: bytes) -> None:
    """Verifies a proof about a raw state key against ``root``: ``claimed`` bytes require an
    inclusion proof of exactly that value, ``None`` an exclusion proof. Raises
    :class:`ProofError` on any rejection; returns None when the proof holds."""
    p = StateProof.decode(proof)
    element = p.element_for(bytes(state_key), None if claimed is None else bytes(claimed))
    verify_active_operation(p.op, element, _digest(root))


def verify_account(root, address, claimed: Optional[Account], proof: bytes) -> None:
    """Verifies a proof about the account at ``address`` (``None`` claims no account)."""
    verify_key(root, account_key(address), None if claimed is None else claimed.encode(), proof)


def verify_storage(root, address, key: bytes, claimed: Optional[bytes], proof: bytes) -> None:
    """Verifies a proof about storage entry ``key`` (raw bytes) of the actor at ``address``
    (``None`` claims the entry is absent)."""
    verify_key(root, storage_key(address, key), claimed, proof)


def verify_code(root, code_hash: bytes, claimed: Optional[bytes], proof: bytes) -> None:
    """Verifies a proof about the actor code with hash ``code_hash`` (keccak256 of it)."""
    code_hash = _digest(code_hash, "code hash")
    if claimed is not None and keccak256(bytes(claimed)) != code_hash:
        raise ProofError("ClaimMismatch")
    verify_key(root, code_key(code_hash), claimed, proof)


# ---------------------------------------------------------------------------------------------
# inclusion.rs: a block's ordered lists (transactions under ``tx_root``; timer executions,
# receipts and hook events under ``receipts_root``) as binary Merkle trees with keccak256.

MAX_SIBLINGS = 64


def _leaf(item: bytes) -> bytes:
    return keccak256(b"\x00", item)


def _inner(left: bytes, right: bytes) -> bytes:
    return keccak256(b"\x01", left, right)


def _seal(count: int, top: bytes) -> bytes:
    return keccak256(b"\x02", _u64(count), top)


def list_root(items: List[bytes]) -> bytes:
    """The root committing to ``items`` (32-byte item hashes, in order): leaves
    ``keccak256(0x00 ‖ h)``, nodes ``keccak256(0x01 ‖ l ‖ r)`` with an odd level's last node
    carried up, root ``keccak256(0x02 ‖ count_be8 ‖ top)`` (32 zero bytes for no items)."""
    level = [_leaf(_digest(i, "item")) for i in items]
    while len(level) > 1:
        level = [_inner(*level[i:i + 2]) if i + 1 < len(level) else level[i]
                 for i in range(0, len(level), 2)]
    return _seal(len(items), level[0] if level else bytes(32))


@dataclass(frozen=True)
class Inclusion:
    """An item's position in its list (``index`` of ``count``) and the siblings on its path to
    the root, lowest first (``cowboy_getTransactionProof``'s ``transactionProof`` and
    ``receiptProof``)."""

    index: int
    count: int
    siblings: Tuple[bytes, ...]

    @staticmethod
    def from_json(o: dict) -> "Inclusion":
        return Inclusion(int(o["index"]), int(o["count"]),
                         tuple(_digest(s, "sibling") for s in o["siblings"]))


def verify_inclusion(root, item, proof: Inclusion) -> None:
    """Checks that ``item`` (an item hash) is at ``proof.index`` of the ``proof.count`` items
    ``root`` commits to. Raises :class:`ProofError` (``ClaimMismatch`` for an index outside the
    list or a path of the wrong length, ``RootMismatch`` when the path does not rebuild
    ``root``); returns None when the proof holds."""
    root, node = _digest(root), _leaf(_digest(item, "item"))
    if not 0 <= proof.index < proof.count or len(proof.siblings) > MAX_SIBLINGS:
        raise ProofError("ClaimMismatch")
    siblings = iter(proof.siblings)
    i, width = proof.index, proof.count
    try:
        while width > 1:
            if i % 2 == 1:
                node = _inner(next(siblings), node)
            elif i + 1 < width:
                node = _inner(node, next(siblings))
            i, width = i // 2, (width + 1) // 2
    except StopIteration:
        raise ProofError("ClaimMismatch") from None
    if next(siblings, None) is not None:
        raise ProofError("ClaimMismatch")
    if _seal(proof.count, node) != root:
        raise ProofError("RootMismatch")
