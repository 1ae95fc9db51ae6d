"""Domain-tagged signatures and the pinned Ed25519 rule (p2p10/signing.py, PROTOCOL.md §2.10)."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st

from p2p10.log import BadEntry, public_bytes, public_key
from p2p10.signing import FIELD_PRIME, SMALL_ORDER, Domain, key_problem, sign, signed_bytes, verify

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
    assert {d.value for d in Domain} == {b"entry", b"sit-down", b"handshake", b"chat", b"agreement"}


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
