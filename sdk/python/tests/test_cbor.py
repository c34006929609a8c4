"""Canonical CBOR: the vectors of crates/types/src/cbor.rs and tests/it/vectors.rs, ported."""

import math
import struct

import pytest

from cowboy import cbor
from cowboy.cbor import Map, decode, encode
from cowboy.errors import CborError


def h(v):
    return encode(v).hex()


def test_rfc8949_appendix_a_examples():
    assert h(0) == "00"
    assert h(23) == "17"
    assert h(24) == "1818"
    assert h(1000) == "1903e8"
    assert h(1_000_000_000_000) == "1b000000e8d4a51000"
    assert h(18446744073709551616) == "c249010000000000000000"
    assert h(-18446744073709551617) == "c349010000000000000000"
    assert h(-1) == "20"
    assert h(-1000) == "3903e7"
    assert h(1.1) == "fb3ff199999999999a"
    assert h("IETF") == "6449455446"
    assert h(None) == "f6"
    assert h(True) == "f5"
    assert h(False) == "f4"
    assert h(b"\x01\x02") == "420102"
    assert h([1, [2, 3]]) == "8201820203"
    assert h(2**64 - 1) == "1bffffffffffffffff"
    assert h(-(2**64)) == "3bffffffffffffffff"


def test_floats_are_never_shortened_and_nan_is_canonical():
    assert h(1.5) == "fb3ff8000000000000"
    assert h(0.0) == "fb0000000000000000"
    assert h(-0.0) == "fb8000000000000000"
    assert h(float("inf")) == "fb7ff0000000000000"
    assert h(float("nan")) == "fb7ff8000000000000"
    weird_nan = struct.unpack(">d", bytes.fromhex("7ff8000000000001"))[0]
    assert h(weird_nan) == "fb7ff8000000000000"
    assert math.isnan(decode(bytes.fromhex("fb7ff8000000000000")))


def test_map_keys_are_sorted_by_encoding():
    m = {"aa": 1, 10: 2, "b": 3}
    # 0x0a < 0x61 'b' < 0x62 'aa' (shorter encodings sort first).
    assert h(m) == "a30a0261620362616101"
    assert encode(decode(encode(m))) == encode(m)
    assert decode(encode(m)) == m


def test_appendix_a_transaction_arrays():
    # The same vectors tests/it/vectors.rs cross-checks against cbor2.
    to = bytes.fromhex("11" * 20)
    v1 = [1, 0, to, 1, 21000, 0, 10, 2, 1, 0, None, b"", None]
    v2 = v1[:12] + [[0, b"\x01" * 32, b"\x02" * 32]]
    assert h(v1) == "8d010054111111111111111111111111111111111111111101195208000a020100f640f6"
    assert h(v2) == (
        "8d010054111111111111111111111111111111111111111101195208000a020100f640830058200101010101"
        "01010101010101010101010101010101010101010101010101010158200202020202020202020202020202"
        "020202020202020202020202020202020202"
    )


REJECT = [
    ("1817", "NonShortestHead"),
    ("190017", "NonShortestHead"),
    ("9f01ff", "IndefiniteLength"),
    ("5f4101ff", "IndefiniteLength"),
    ("c101", "UnsupportedTag"),
    ("c24101", "NonCanonicalBignum"),
    ("c2490001000000000000000000", "NonCanonicalBignum"),
    ("f7", "UnsupportedSimple"),
    ("f93c00", "UnsupportedSimple"),
    ("fa3f800000", "UnsupportedSimple"),
    ("fb7ff8000000000001", "NonCanonicalNan"),
    ("62c328", "InvalidUtf8"),
    ("a2616201616101", "MapKeysNotSorted"),
    ("a2616101616102", "DuplicateMapKey"),
    ("0000", "TrailingBytes"),
    ("1c", "ReservedAdditionalInfo"),
    ("19", "UnexpectedEof"),
    ("9b7fffffffffffffff", "LengthExceedsInput"),
    ("5a00010000", "LengthExceedsInput"),
]


@pytest.mark.parametrize("hexin,kind", REJECT)
def test_rejects_non_canonical_inputs(hexin, kind):
    with pytest.raises(CborError) as e:
        decode(bytes.fromhex(hexin))
    assert e.value.kind == kind


def test_error_details_and_offsets_match_rust():
    cases = {
        "c101": ("UnsupportedTag", 1, 0),
        "f7": ("UnsupportedSimple", 23, 0),
        "f93c00": ("UnsupportedSimple", 25, 0),
        "1c": ("ReservedAdditionalInfo", 28, 0),
        "9b7fffffffffffffff": ("LengthExceedsInput", 0x7FFF_FFFF_FFFF_FFFF, 0),
        "5a00010000": ("LengthExceedsInput", 65536, 0),
        "0000": ("TrailingBytes", None, 1),
        "a2616201616101": ("MapKeysNotSorted", None, 4),
    }
    for hexin, (kind, detail, offset) in cases.items():
        with pytest.raises(CborError) as e:
            decode(bytes.fromhex(hexin))
        assert (e.value.kind, e.value.detail, e.value.offset) == (kind, detail, offset), hexin


def test_depth_is_bounded():
    deep = bytes([0x81] * (cbor.MAX_DEPTH + 2) + [0x00])
    with pytest.raises(CborError) as e:
        decode(deep)
    assert e.value.kind == "DepthExceeded"
    ok = bytes([0x81] * cbor.MAX_DEPTH + [0x00])
    assert encode(decode(ok)) == ok


def test_integer_round_trips():
    for v in [0, 1, 23, 24, 2**64 - 1, 2**64, 2**128 - 1, -1, -24, -25, -(2**63),
              -(2**64) - 1, -(2**127), 2**4095, -(2**4096)]:
        enc = encode(v)
        assert decode(enc) == v
        assert encode(decode(enc)) == enc
    # 4096-bit magnitude is the limit (512 bytes); one bit more is refused by the encoder.
    with pytest.raises(CborError):
        encode(2**4096)
    # and a 513-byte bignum is refused by the decoder.
    too_big = bytes.fromhex("c25902 01".replace(" ", "")) + b"\x01" + b"\x00" * 512
    with pytest.raises(CborError) as e:
        decode(too_big)
    assert e.value.kind == "NonCanonicalBignum"


def test_every_type_round_trips_like_the_rust_cross_check():
    value = {
        "neg": -123456789012345678901234567890,
        "big": 2**128 - 1,
        7: [None, True, 1.5],
        "b": b"\x00\x01\x02",
    }
    enc = encode(value)
    assert decode(enc) == value
    assert encode(decode(enc)) == enc


def test_colliding_and_unhashable_keys_survive_as_map():
    m = Map([(1, "int"), (True, "bool"), (1.0, "float")])
    enc = encode(m)
    back = decode(enc)
    assert isinstance(back, Map)
    assert encode(back) == enc
    nested = Map([([1, 2], "list key"), ({"a": 1}, "map key")])
    back = decode(encode(nested))
    assert encode(back) == encode(nested)
    assert back[(1, 2)] == "list key"
    assert back[Map({"a": 1})] == "map key"
    with pytest.raises(CborError) as e:
        encode(Map([("a", 1), ("a", 2)]))
    assert e.value.kind == "DuplicateMapKey"


def test_unsupported_python_types():
    for bad in [{1, 2}, object(), 1j]:
        with pytest.raises(CborError):
            encode(bad)


def test_tuples_and_bytearrays_encode_as_arrays_and_bytes():
    assert encode((1, 2)) == encode([1, 2])
    assert encode(bytearray(b"ab")) == encode(b"ab")
    assert decode(encode((1, 2))) == [1, 2]


def test_truncation_and_mutation_never_crash():
    base = encode({"k": [1, -2, 2**70, 1.25, "txt", b"\x00" * 3, None, True]})
    for cut in range(len(base)):
        with pytest.raises(CborError):
            decode(base[:cut])
    for i in range(len(base)):
        for delta in (1, 0x20, 0x80, 0xFF):
            m = bytearray(base)
            m[i] = (m[i] + delta) & 0xFF
            try:
                v = decode(bytes(m))
            except CborError:
                continue
            assert encode(v) == bytes(m), f"non-canonical input accepted at byte {i}"
