"""cowboy.proof against the real QMDB proofs of crates/proof-verifier/tests/vectors.txt (copied to
tests/data/proof_vectors.txt; produced by cowboy-state), plus the crate's unit tests, ported."""

from pathlib import Path

import blake3
import pytest

from cowboy import proof as P
from cowboy.errors import ProofError

DATA = Path(__file__).parent / "data" / "proof_vectors.txt"
CRATE_COPY = Path(__file__).resolve().parents[3] / "crates" / "proof-verifier" / "tests" / "vectors.txt"


def vectors():
    out = {}
    for line in DATA.read_text().splitlines():
        if line.strip():
            name, hexv = line.split(" ", 1)
            out[name] = bytes.fromhex(hexv.strip())
    return out


V = vectors()


def test_fixture_copy_matches_the_crate():
    if not CRATE_COPY.exists():
        pytest.skip("not inside the cowboy repository")
    assert CRATE_COPY.read_text() == DATA.read_text(), "re-copy crates/proof-verifier/tests/vectors.txt"


def kind(excinfo):
    return excinfo.value.kind


def test_account_inclusion_and_exclusion():
    root = V["root"]
    present = V["account_address"]
    account = P.Account.decode(V["account_record"])
    assert account.encode() == V["account_record"]
    proof = V["account_proof"]
    P.verify_account(root, present, account, proof)

    richer = P.Account(**{**account.__dict__, "balance": account.balance + 1})
    with pytest.raises(ProofError) as e:
        P.verify_account(root, present, richer, proof)
    assert kind(e) == "RootMismatch"
    with pytest.raises(ProofError) as e:
        P.verify_account(root, present, None, proof)
    assert kind(e) == "ClaimMismatch"
    absent = V["absent_address"]
    with pytest.raises(ProofError):
        P.verify_account(root, absent, account, proof)

    absent_proof = V["absent_proof"]
    P.verify_account(root, absent, None, absent_proof)
    with pytest.raises(ProofError):
        P.verify_account(root, present, None, absent_proof)
    assert isinstance(P.StateProof.decode(absent_proof).claim, P.AbsentInSpan)

    wrong_root = bytearray(root)
    wrong_root[31] ^= 0x80
    with pytest.raises(ProofError) as e:
        P.verify_account(bytes(wrong_root), present, account, proof)
    assert kind(e) == "RootMismatch"
    with pytest.raises(ProofError):
        P.verify_account(bytes(wrong_root), absent, None, absent_proof)


def test_storage_inclusion_and_exclusion():
    root = V["root"]
    owner = V["account_address"]
    key, value, proof = V["storage_key"], V["storage_value"], V["storage_proof"]
    P.verify_storage(root, owner, key, value, proof)
    # Roots and addresses may be given as hex text too.
    P.verify_storage("0x" + root.hex(), "0x" + owner.hex(), key, value, proof)
    with pytest.raises(ProofError):
        P.verify_storage(root, owner, key, b"other", proof)
    with pytest.raises(ProofError):
        P.verify_storage(root, V["absent_address"], key, value, proof)

    absent_key, absent_proof = V["absent_storage_key"], V["absent_storage_proof"]
    P.verify_storage(root, owner, absent_key, None, absent_proof)
    with pytest.raises(ProofError):
        P.verify_storage(root, owner, key, None, absent_proof)
    # An account proof is not a storage proof.
    with pytest.raises(ProofError):
        P.verify_storage(root, owner, key, value, V["account_proof"])


def test_garbage_is_rejected_without_crashing():
    root, owner = V["root"], V["account_address"]
    for length in (0, 1, 2, 10, 100, 1000):
        for fill in (0, 1, 0xFF):
            junk = bytes([fill]) * length
            with pytest.raises(ProofError):
                P.verify_account(root, owner, None, junk)
            with pytest.raises(ProofError):
                P.verify_storage(root, owner, b"k", b"v", junk)


def test_every_bit_flip_and_prefix_of_a_real_proof_is_rejected():
    root, owner = V["root"], V["account_address"]
    key, value, proof = V["storage_key"], V["storage_value"], V["storage_proof"]
    for cut in range(len(proof)):
        with pytest.raises(ProofError):
            P.verify_storage(root, owner, key, value, proof[:cut])
    for i in range(len(proof)):
        for bit in (0, 3, 7):
            m = bytearray(proof)
            m[i] ^= 1 << bit
            with pytest.raises(ProofError):
                P.verify_storage(root, owner, key, value, bytes(m))


def sample(claim):
    return P.StateProof(
        P.OperationProof(loc=5, chunk=b"\xf0" * 32, leaves=300, inactive_peaks=1,
                         digests=[b"\x01" * 32, b"\x02" * 32], partial_chunk_digest=b"\x03" * 32,
                         ops_root=b"\x04" * 32),
        claim,
    )


def test_proof_encoding_round_trips_every_kind():
    for claim in [P.Present(b"\x01\x02"), P.AbsentInSpan(b"\x01", b"\x09" * 40, b"\x03"),
                  P.Empty(None), P.Empty(b"\x07" * 8)]:
        p = sample(claim)
        assert P.StateProof.decode(p.encode()) == p
    for name in ("account_proof", "absent_proof", "storage_proof", "absent_storage_proof"):
        assert P.StateProof.decode(V[name]).encode() == V[name]


def test_rejects_malformed_bytes():
    good = sample(P.Empty(None)).encode()
    for cut in range(len(good)):
        with pytest.raises(ProofError) as e:
            P.StateProof.decode(good[:cut])
        assert kind(e) == "Malformed"
    with pytest.raises(ProofError) as e:
        P.StateProof.decode(good + b"\x00")
    assert e.value.detail == "TrailingBytes(1)"
    k = bytearray(good)
    k[1] = 9
    with pytest.raises(ProofError) as e:
        P.StateProof.decode(bytes(k))
    assert e.value.detail == "UnknownKind(9)"
    v = bytearray(good)
    v[0] = 0
    with pytest.raises(ProofError) as e:
        P.StateProof.decode(bytes(v))
    assert e.value.detail == "UnknownVersion(0)"
    many = bytearray(good)
    many[2 + 8 + 32 + 16:2 + 8 + 32 + 18] = (500).to_bytes(2, "big")
    with pytest.raises(ProofError) as e:
        P.StateProof.decode(bytes(many))
    assert e.value.detail == "TooManyDigests(500)"


def test_cyclic_spans():
    s = P._in_cyclic_span
    assert s(b"b", b"d", b"c")
    assert not s(b"b", b"d", b"d")
    assert not s(b"b", b"d", b"a")
    assert s(b"x", b"b", b"z")
    assert s(b"x", b"b", b"a")
    assert not s(b"x", b"b", b"c")
    assert s(b"k", b"k", b"anything")


def test_varint_matches_leb128():
    out = bytearray()
    P._put_varint(out, 300)
    assert bytes(out) == b"\xac\x02"
    assert P.encode_commit(None, 0) == bytes([P.COMMIT_CONTEXT, 0, 0])


def test_mmr_peaks_match_the_layout():
    got = [(s.pos, s.height, s.leaf_start) for s in P._peaks(11)]
    assert got == [(14, 3, 0), (17, 1, 8), (18, 0, 10)]
    assert P._peaks(0) == []
    l, r = P._peaks(8)[0].children()
    assert (l.pos, r.pos) == (6, 13)
    assert (l.leaf_start, r.leaf_start) == (0, 4)


def test_key_layout():
    a = b"\x07" * 20
    assert P.account_key(a)[0] == 1 and len(P.account_key(a)) == 21
    assert P.storage_key(a, b"k")[0] == 2 and len(P.storage_key(a, b"k")) == 33
    assert P.code_key(b"\x09" * 32)[0] == 3
    assert P.storage_key(a, b"k") != P.storage_key(a, b"k2")
    assert P.storage_key(a, b"k") != P.storage_key(b"\x08" * 20, b"k")
    # Pinned derivation: 0x02 ‖ blake3(address ‖ key).
    assert P.storage_key(b"\x11" * 20, b"balance")[1:] == blake3.blake3(b"\x11" * 20 + b"balance").digest()


def test_account_record():
    sample_acct = P.Account(balance=10**21, nonce=7, code_hash=b"\xab" * 32, storage_items=3,
                            storage_bytes=120, metadata=b"\x01\x02\x03")
    for acct in (sample_acct, P.Account()):
        assert P.Account.decode(acct.encode()) == acct
    assert P.Account().encode() == b"\x01" + bytes(24) + b"\x00" + bytes(20)
    good = sample_acct.encode()
    cases = [
        (good[:-1], "Truncated", "metadata"),
        (good + b"\x00", "TrailingBytes", 1),
        (b"\x02" + good[1:], "UnknownVersion", 2),
        (good[:25] + b"\x02" + good[26:], "BadCodeFlag", 2),
        (P.Account().encode()[:-4] + (5000).to_bytes(4, "big"), "MetadataTooLong", 5000),
        (b"", "Truncated", "version"),
    ]
    for data, k, detail in cases:
        with pytest.raises(P.AccountError) as e:
            P.Account.decode(data)
        assert (e.value.kind, e.value.detail) == (k, detail)


def test_code_claims_must_hash_to_their_key():
    with pytest.raises(ProofError) as e:
        P.verify_code(V["root"], b"\x00" * 32, b"class A: pass\n", V["account_proof"])
    assert kind(e) == "ClaimMismatch"


# inclusion.rs: a block's ordered lists.

def _items(n):
    from cowboy.crypto import keccak256
    return [keccak256(i.to_bytes(8, "big")) for i in range(n)]


def _prove(items, index):
    """A straightforward reference prover: the sibling of the path's node on each level that
    has one (an odd level's last node is carried up)."""
    level = [P._leaf(i) for i in items]
    siblings, i = [], index
    while len(level) > 1:
        if i ^ 1 < len(level):
            siblings.append(level[i ^ 1])
        level = [P._inner(*level[j:j + 2]) if j + 1 < len(level) else level[j]
                 for j in range(0, len(level), 2)]
        i //= 2
    return P.Inclusion(index, len(items), tuple(siblings))


def test_inclusion_roots_match_the_crate():
    # The same vectors as the crate's `known_roots`.
    assert P.list_root([]).hex() == "f28d766e14bfa9767b97ce2a50d9b632eb10ef9c4aa085943ece3a4fcd5ef287"
    assert P.list_root(_items(5)).hex() == "01044be4293e4bf7e5eb548b7cd53caa7caee3db7af4ad71e4fc732ccaa02036"


def test_every_item_proves_and_nothing_else_does():
    for n in range(0, 20):
        items = _items(n)
        root = P.list_root(items)
        for i, item in enumerate(items):
            p = _prove(items, i)
            P.verify_inclusion(root, item, p)
            bad = [
                (root, b"\x07" * 32, p, "RootMismatch"),
                (root, item, P.Inclusion(i, n + 1, p.siblings), None),
                (root, item, P.Inclusion(n, n, p.siblings), "ClaimMismatch"),
                (root, item, P.Inclusion(i, n, p.siblings + (b"\x00" * 32,)), "ClaimMismatch"),
            ]
            if p.siblings:
                flipped = (bytes([p.siblings[0][0] ^ 1]) + p.siblings[0][1:],) + p.siblings[1:]
                bad.append((root, item, P.Inclusion(i, n, flipped), "RootMismatch"))
                bad.append((root, item, P.Inclusion(i, n, p.siblings[:-1]), "ClaimMismatch"))
            for r, it, proof, want in bad:
                with pytest.raises(ProofError) as e:
                    P.verify_inclusion(r, it, proof)
                if want:
                    assert kind(e) == want
