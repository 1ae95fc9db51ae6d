"""Domain-tagged signatures and the pinned Ed25519 rule (p2p10/signing.py, PROTOCOL.md §2.10)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st

from p2p10.log import BadEntry, public_bytes, public_key
from p2p10.signing import FIELD_PRIME, SMALL_ORDER, Domain, key_problem, sign, signed_bytes, verify
from protocol.vectors.make_signature_vectors import SIGNATURE_VECTORS_PATH

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
PUBLIC = KEY.public_key()


@given(st.sampled_from(list(Domain)), st.sampled_from(list(Domain)), st.binary(max_size=200),
       st.binary(max_size=200))
def test_a_signature_verifies_only_for_its_own_domain_and_message(
        made_for: Domain, checked_as: Domain, message: bytes, other: bytes) -> None:
    signature = sign(KEY, made_for, message)
    assert verify(PUBLIC, checked_as, message, signature) == (checked_as == made_for)
    assert verify(PUBLIC, made_for, other, signature) == (other == message)


@given(st.sampled_from(list(Domain)), st.sampled_from(list(Domain)), st.binary(max_size=64),
       st.binary(max_size=64))
def test_no_two_tagged_messages_give_the_same_signed_bytes(
        d1: Domain, d2: Domain, m1: bytes, m2: bytes) -> None:
    assert (signed_bytes(d1, m1) == signed_bytes(d2, m2)) == (d1 == d2 and m1 == m2)


def test_the_tags_are_the_registered_ones() -> None:
    assert {d.value for d in Domain} == {b"entry", b"sit-down", b"lobby", b"handshake", b"chat", b"agreement",
                                         b"return"}


def test_a_signature_of_the_wrong_length_is_refused_not_raised() -> None:
    signature = sign(KEY, Domain.CHAT, b"hi")
    for bad in (b"", signature[:63], signature + b"\0"):
        assert not verify(PUBLIC, Domain.CHAT, b"hi", bad)


@pytest.mark.parametrize("point", sorted(SMALL_ORDER))
@pytest.mark.parametrize("sign_bit", [0, 0x80])
def test_every_spelling_of_a_small_order_key_is_refused(point: bytes, sign_bit: int) -> None:
    spelled = point[:31] + bytes([point[31] | sign_bit])
    with pytest.raises(BadEntry, match="weak identity key"):
        public_key(spelled)


@pytest.mark.parametrize("y", range(FIELD_PRIME, 2**255))
@pytest.mark.parametrize("sign_bit", [0, 0x80])
def test_no_non_canonical_key_is_admitted(y: int, sign_bit: int) -> None:
    """Every 32 bytes whose y is p or more: a weak key, a non-canonical one or no point."""
    data = bytearray(y.to_bytes(32, "little"))
    data[31] |= sign_bit
    assert key_problem(bytes(data)) is not None
    with pytest.raises(BadEntry):
        public_key(bytes(data))


def test_an_honest_key_is_admitted() -> None:
    assert key_problem(public_bytes(KEY)) is None
    assert public_bytes(public_key(public_bytes(KEY))) == public_bytes(KEY)


# ------------------------------------------------------- the rule, written out from the spec alone
#
# A second implementation of PROTOCOL.md §2.10 and §2.12 in plain Python integers (RFC 8032's
# Edwards arithmetic, with no library), so that the text, not just the code, is checked against
# every vector: an independent implementer who follows it reaches the same verdicts.

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, -1, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
Point = tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T)
IDENTITY: Point = (0, 1, 1, 0)


def _add(p: Point, q: Point) -> Point:
    a = (p[1] - p[0]) * (q[1] - q[0]) % P
    b = (p[1] + p[0]) * (q[1] + q[0]) % P
    c = 2 * p[3] * q[3] * D % P
    d = 2 * p[2] * q[2] % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _mul(scalar: int, point: Point) -> Point:
    out = IDENTITY
    while scalar:
        if scalar & 1:
            out = _add(out, point)
        point = _add(point, point)
        scalar >>= 1
    return out


def _x_of(y: int, sign: int) -> int | None:
    x2 = (y * y - 1) * pow(D * y * y + 1, -1, P) % P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P:
        return None
    return P - x if (x & 1) != sign else x


def _decode(data: bytes) -> Point | None:
    """RFC 8032 §5.1.3, strict: y below p, a point of the curve."""
    y = int.from_bytes(data, "little") & ((1 << 255) - 1)
    x = _x_of(y, data[31] >> 7) if y < P else None
    return None if x is None else (x, y, 1, x * y % P)


def _encode(point: Point) -> bytes:
    z = pow(point[2], -1, P)
    x, y = point[0] * z % P, point[1] * z % P
    return (y | (x & 1) << 255).to_bytes(32, "little")


BASE = _decode(bytes.fromhex("5866666666666666666666666666666666666666666666666666666666666666"))
SMALL = {bytes.fromhex(h) for h in (
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0100000000000000000000000000000000000000000000000000000000000000",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
)}


def test_the_seven_small_order_encodings_are_every_spelling_of_the_eight_small_order_points() -> None:
    """§2.10's list, written out in full there, is the reference's, and it is what it says:
    five canonical encodings that decode (with either sign bit) to exactly eight points whose
    order divides 8, and the two non-canonical spellings y = p and y = p + 1."""
    assert SMALL == SMALL_ORDER
    identity = _encode(IDENTITY)
    assert identity == bytes([1]) + bytes(31)
    canonical = [h for h in SMALL if int.from_bytes(h, "little") < P]
    assert len(canonical) == 5
    points = set()
    for spelled in canonical:
        for sign_bit in (0, 0x80):
            point = _decode(spelled[:31] + bytes([spelled[31] | sign_bit]))
            if point is not None:
                assert _encode(_mul(8, point)) == identity
                points.add(_encode(point))
    assert len(points) == 8
    spellings = {int.from_bytes(h, "little") for h in SMALL}
    assert spellings - {int.from_bytes(h, "little") for h in canonical} == {P, P + 1}
    spec = (Path(__file__).parent.parent / "specs" / "PROTOCOL.md").read_text(encoding="utf-8")
    assert all(h.hex() in spec for h in SMALL)


def _small(data: bytes) -> bool:
    return data[:31] + bytes([data[31] & 0x7F]) in SMALL


def spec_admits(key: bytes) -> bool:
    """§2.10: not small order in any spelling, y below p, a point of the curve."""
    return len(key) == 32 and not _small(key) and _decode(key) is not None


def spec_accepts(key: bytes, message: bytes, signature: bytes, cofactored: bool = False) -> bool:
    """§2.12 steps 1-4 (or, for contrast, the cofactored equation the rule forbids)."""
    public = _decode(key)
    if not spec_admits(key) or public is None or len(signature) != 64:
        return False
    r, s = signature[:32], int.from_bytes(signature[32:], "little")
    if s >= L or _small(r):
        return False
    assert BASE is not None
    k = int.from_bytes(hashlib.sha512(r + key + message).digest(), "little") % L
    ka = _mul(k, public)
    minus_ka = (-ka[0] % P, ka[1], ka[2], -ka[3] % P)  # not [ℓ - k]A: A may have a torsion part
    if cofactored:
        point_r = _decode(r)
        return point_r is not None and _encode(_mul(8, _add(_mul(s, BASE), minus_ka))) == _encode(
            _mul(8, point_r))
    return _encode(_add(_mul(s, BASE), minus_ka)) == r


@pytest.fixture(scope="module")
def vectors() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SIGNATURE_VECTORS_PATH.read_text(encoding="utf-8"))
    return data


def test_the_rule_as_written_gives_every_edge_case_its_recorded_verdict(vectors: dict[str, Any]) -> None:
    cofactored_only = []
    for case in vectors["edge_cases"]:
        key, message, signature = (bytes.fromhex(case[f]) for f in ("public_key", "message", "signature"))
        assert spec_admits(key) == case["key_admitted"], case["name"]
        assert spec_accepts(key, message, signature) == case["accepted"], case["name"]
        if spec_accepts(key, message, signature, cofactored=True) and not case["accepted"] \
                and case["key_admitted"] and not _small(signature[:32]):
            cofactored_only.append(case["name"])
    # What the MUST NOT forbids: the cofactored equation would take these two.
    assert cofactored_only == ["taming-4", "taming-5"]


def test_the_rule_as_written_accepts_each_domain_vector(vectors: dict[str, Any]) -> None:
    key = bytes.fromhex(vectors["public_key"])
    for v in vectors["domains"]:
        signature = bytes.fromhex(v["signature"])
        assert spec_accepts(key, bytes.fromhex(v["signed_bytes"]), signature)
        assert not spec_accepts(key, bytes.fromhex(v["message"]), signature)
