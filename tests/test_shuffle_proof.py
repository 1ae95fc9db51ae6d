"""The proof of shuffle (PROTOCOL §2.13): honest proofs verify; every part of a proof, and of the
statement it is about, is bound, so any change is refused; malformed proofs are refused with a
reason, never an exception out of the verifier."""

from __future__ import annotations

import os
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p10.crypto import shuffle_proof
from p2p10.crypto.elgamal import Deck, initial_deck, rerandomise
from p2p10.crypto.group import GROUP_ORDER, Point, Scalar, base_mul
from p2p10.crypto.shuffle import apply_shuffle, derive_permutation, derive_rerandomisers, shuffle_and_prove
from p2p10.crypto.shuffle_proof import BadShuffleProof, ShuffleProof, prove_shuffle, verify_shuffle_proof

JOINT = base_mul(Scalar.from_int(0xC0FFEE))
CONTEXT = b"test-shuffle-proof"


def shuffled(cards: Sequence[int], seed: bytes = bytes(32)) -> Deck:
    """A deck whose ``A`` components are not the identity: the cards shuffled once."""
    return apply_shuffle(initial_deck(cards), seed, JOINT, b"first")


def proved(before: Deck, seed: bytes = bytes(range(32)), context: bytes = CONTEXT) -> tuple[Deck, bytes]:
    after, proof = shuffle_and_prove(before, seed, JOINT, context)
    return after, proof.to_bytes()


SMALL = shuffled([3, 17, 60, 77, 101, 8])
SMALL_AFTER, SMALL_PROOF = proved(SMALL)


def test_an_honest_proof_verifies_for_the_whole_deck_and_for_a_small_one() -> None:
    whole = initial_deck()
    after, proof = proved(whole)
    assert len(proof) == ShuffleProof.wire_bytes(108) == 128 * 108 + 160
    assert verify_shuffle_proof(whole, after, JOINT, proof, CONTEXT)
    assert verify_shuffle_proof(SMALL, SMALL_AFTER, JOINT, SMALL_PROOF, CONTEXT)
    one = shuffled([42])
    after_one, proof_one = proved(one)
    assert verify_shuffle_proof(one, after_one, JOINT, proof_one, CONTEXT)


def test_the_proof_is_derived_from_the_seed_and_the_statement() -> None:
    assert proved(SMALL) == (SMALL_AFTER, SMALL_PROOF)  # a restarted peer rebuilds it byte for byte
    _, other_context = proved(SMALL, context=b"elsewhere")
    assert other_context != SMALL_PROOF


def _altered(proof: bytes, index: int, size: int) -> bytes:
    """The proof with its ``index``-th 32-byte part changed, but still well formed: another
    valid point for a point, the value plus one for a scalar."""
    start = 32 * index
    if index < 2 * size:
        current = Point.from_bytes(proof[start:start + 32])
        replacement = (current + base_mul(Scalar.from_int(1))).to_bytes()
    else:
        value = int.from_bytes(proof[start:start + 32], "little")
        replacement = ((value + 1) % GROUP_ORDER).to_bytes(32, "little")
    return proof[:start] + replacement + proof[start + 32:]


def test_every_part_of_a_proof_is_bound() -> None:
    size = len(SMALL)
    parts = len(SMALL_PROOF) // 32
    assert parts == 4 * size + 5
    for index in range(parts):
        altered = _altered(SMALL_PROOF, index, size)
        ShuffleProof.from_bytes(altered, size)  # well formed ...
        assert not verify_shuffle_proof(SMALL, SMALL_AFTER, JOINT, altered, CONTEXT), index  # ... but false


def _swapped(deck: Deck, i: int, j: int) -> Deck:
    cards = list(deck)
    cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def test_every_part_of_the_statement_is_bound() -> None:
    copied = list(SMALL_AFTER)
    copied[2] = rerandomise(SMALL_AFTER[4], Scalar.from_int(99), JOINT)
    other_joint = base_mul(Scalar.from_int(0xBEEF))
    for before, after, joint, context in [
        (SMALL, _swapped(SMALL_AFTER, 0, 3), JOINT, CONTEXT),  # a swapped pair of outputs
        (SMALL, tuple(copied), JOINT, CONTEXT),  # a copied ciphertext
        (SMALL, SMALL_AFTER, other_joint, CONTEXT),  # another joint key
        (SMALL, SMALL_AFTER, JOINT, b"another hand"),  # another context
        (_swapped(SMALL, 1, 2), SMALL_AFTER, JOINT, CONTEXT),  # another input deck
        (SMALL[:5], SMALL_AFTER[:5], JOINT, CONTEXT),  # fewer cards
    ]:
        assert not verify_shuffle_proof(before, after, joint, SMALL_PROOF, context)


def test_a_proof_of_something_that_is_not_a_shuffle_does_not_verify() -> None:
    """The prover given a copy (two outputs from one input) makes a whole proof; it is false."""
    seed = bytes(range(32))
    perm = list(derive_permutation(seed, len(SMALL), CONTEXT))
    rs = [int.from_bytes(r.to_bytes(), "little") for r in derive_rerandomisers(seed, len(SMALL), CONTEXT)]
    perm[1] = perm[0]
    after = [rerandomise(SMALL[p], Scalar.from_int(r), JOINT) for p, r in zip(perm, rs, strict=True)]
    proof = prove_shuffle(SMALL, after, perm, rs, JOINT, CONTEXT, seed)
    assert len(proof.to_bytes()) == len(SMALL_PROOF)
    assert not verify_shuffle_proof(SMALL, after, JOINT, proof, CONTEXT)


def _second_spelling(point: bytes) -> bytes:
    return point[:31] + bytes([point[31] | 0x80])


@pytest.mark.parametrize(("where", "phrase"), [
    ("short", "is 928 bytes"),
    ("long", "is 928 bytes"),
    ("identity", "permutation commitment 2 is not a valid point"),
    ("invalid point", "commitment chain 1 is not a valid point"),
    ("high bit", "permutation commitment 0 is not a valid point"),
    ("unreduced scalar", "scalar 3 is not reduced"),
])
def test_a_malformed_proof_is_refused_with_a_reason(where: str, phrase: str) -> None:
    size = len(SMALL)
    proof = bytearray(SMALL_PROOF)
    if where == "short":
        proof = proof[:-1]
    elif where == "long":
        proof += b"\0"
    elif where == "identity":
        proof[64:96] = bytes(32)
    elif where == "invalid point":
        proof[32 * (size + 1):32 * (size + 2)] = b"\x01" * 32
    elif where == "high bit":
        proof[0:32] = _second_spelling(bytes(proof[0:32]))
    else:
        start = 32 * (2 * size + 3)
        value = int.from_bytes(proof[start:start + 32], "little") + GROUP_ORDER
        proof[start:start + 32] = value.to_bytes(32, "little")
    with pytest.raises(BadShuffleProof, match=phrase):
        ShuffleProof.from_bytes(bytes(proof), size)
    assert not verify_shuffle_proof(SMALL, SMALL_AFTER, JOINT, bytes(proof), CONTEXT)


def test_the_verifier_never_raises_on_nonsense() -> None:
    for proof in (b"", bytes(928), os.urandom(928), "text", None, 7):
        assert not verify_shuffle_proof(SMALL, SMALL_AFTER, JOINT, proof, CONTEXT)  # type: ignore[arg-type]
    assert not verify_shuffle_proof((), (), JOINT, b"", CONTEXT)


def test_a_verdict_is_kept_and_reused_only_for_the_very_same_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    shuffle_proof.VERDICTS.clear()
    checks: list[int] = []
    real = shuffle_proof._check

    def counting(statement: object, proof: ShuffleProof) -> bool:
        checks.append(1)
        return real(statement, proof)  # type: ignore[arg-type]

    monkeypatch.setattr(shuffle_proof, "_check", counting)
    for _ in range(3):
        assert verify_shuffle_proof(SMALL, SMALL_AFTER, JOINT, SMALL_PROOF, CONTEXT)
    assert len(checks) == 1  # three peers in one process: one check
    bad = _altered(SMALL_PROOF, 0, len(SMALL))
    for _ in range(2):
        assert not verify_shuffle_proof(SMALL, SMALL_AFTER, JOINT, bad, CONTEXT)
    assert len(checks) == 2
    assert not verify_shuffle_proof(SMALL, SMALL_AFTER, JOINT, SMALL_PROOF, b"other")
    assert len(checks) == 3


@settings(max_examples=25, deadline=None)
@given(cards=st.lists(st.integers(0, 107), min_size=1, max_size=9, unique=True),
       seed=st.binary(min_size=32, max_size=32), flip=st.integers(0, 10**6))
def test_any_honest_shuffle_proves_and_any_flipped_byte_is_refused(cards: list[int], seed: bytes,
                                                                    flip: int) -> None:
    before = shuffled(cards)
    after, proof = proved(before, seed)
    assert verify_shuffle_proof(before, after, JOINT, proof, CONTEXT)
    position = flip % len(proof)
    damaged = proof[:position] + bytes([proof[position] ^ (1 << (flip % 8))]) + proof[position + 1:]
    assert not verify_shuffle_proof(before, after, JOINT, damaged, CONTEXT)


def test_a_ciphertext_list_of_the_wrong_length_proves_nothing() -> None:
    with pytest.raises(ValueError, match="one size"):
        prove_shuffle(SMALL, SMALL_AFTER[:3], [0, 1, 2], [1, 2, 3], JOINT, CONTEXT, bytes(32))
