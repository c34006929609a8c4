"""The runner-side module without a node: what a runner signs (checked with an independent
Ed25519 implementation, `cryptography`'s, over commonware's namespaced message), commitments,
and the inbox that carries reveals to the aggregator over loopback HTTP. The node's verifier
accepting these signatures is `test_jobs_e2e.py`."""

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from cowboy.crypto import keccak256
from cowboy.runner import (
    NAMESPACE, Reveal, RevealInbox, RunnerKey, commitment, fault_report, result_digest, send_reveal,
)


def test_the_signature_is_ed25519_over_the_namespaced_digest():
    key = RunnerKey(bytes([1]) * 32)
    digest = result_digest(1337, b"\x07" * 32, b'{"price": 1}', 10, 20)
    sig = key.sign(digest)
    pub = Ed25519PublicKey.from_public_bytes(key.public)
    pub.verify(sig, bytes([23]) + NAMESPACE + digest)  # raises if wrong
    with pytest.raises(InvalidSignature):
        pub.verify(sig, digest)
    # The digest binds chain, job, result and usage.
    other = {
        result_digest(1338, b"\x07" * 32, b'{"price": 1}', 10, 20),
        result_digest(1337, b"\x08" * 32, b'{"price": 1}', 10, 20),
        result_digest(1337, b"\x07" * 32, b'{"price": 2}', 10, 20),
        result_digest(1337, b"\x07" * 32, b'{"price": 1}', 11, 20),
        result_digest(1337, b"\x07" * 32, b'{"price": 1}', 10, 21),
    }
    assert digest not in other and len(other) == 5
    assert digest == keccak256(
        b"cowboy-runner-result-v1:", (1337).to_bytes(8, "little"), b"\x07" * 32,
        keccak256(b'{"price": 1}'), (10).to_bytes(8, "little"), (20).to_bytes(8, "little"),
    )
    assert commitment(b"r", sig) == keccak256(b"r" + sig)
    with pytest.raises(ValueError):
        RunnerKey(b"short")


def test_a_fault_report_is_the_verifiers_exact_bytes():
    # The form `fault.rs` parses (and its unit test pins): marker, kind, decimal progress.
    assert fault_report("external", 2500) == b"\0cowboy-fault-v1:external:2500"
    assert fault_report("impossible", 0) == b"\0cowboy-fault-v1:impossible:0"
    assert fault_report("actor", 10_000) == b"\0cowboy-fault-v1:actor:10000"
    for kind, bps in [("down", 0), ("external", -1), ("external", 10_001), ("actor", 1.5)]:
        with pytest.raises(ValueError):
            fault_report(kind, bps)


def test_the_inbox_keeps_what_matches_each_commitment():
    inbox = RevealInbox()
    try:
        job = b"\x01" * 32
        honest = Reveal(b"\xaa" * 20, b"2500", 0, 5, b"\x11" * 64)
        forged = Reveal(b"\xaa" * 20, b"9999", 0, 5, b"\x22" * 64)
        send_reveal(inbox.url, job, forged)
        send_reveal(inbox.url, job, honest)
        assert inbox.reveals(job, {honest.runner: honest.commitment}) == {honest.runner: honest}
        assert inbox.reveals(job, {honest.runner: b"\0" * 32}) == {}
        assert inbox.reveals(b"\x02" * 32, {honest.runner: honest.commitment}) == {}
        assert Reveal.from_entry(honest.entry()) == honest
    finally:
        inbox.close()
