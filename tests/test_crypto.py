"""Dealing cryptography: group wrappers, proofs, ElGamal, seeded shuffles."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from p2p10.crypto.elgamal import (
    Ciphertext,
    encrypt_card,
    initial_deck,
    joint_key,
    open_card,
    rerandomise,
    token,
)
from p2p10.crypto.group import (
    GENERATOR,
    GROUP_ORDER,
    IDENTITY,
    BadPoint,
    BadScalar,
    NotACard,
    Point,
    Scalar,
    base_mul,
    card_of_point,
    card_point,
    hash_to_scalar,
    mul,
    random_scalar,
)
from p2p10.crypto.proofs import (
    DleqProof,
    SchnorrProof,
    prove_equal_logs,
    prove_knowledge,
    verify_equal_logs,
    verify_knowledge,
)
from p2p10.crypto.shuffle import (
    _uniform_below,
    apply_shuffle,
    commit_seed,
    derive_permutation,
    derive_rerandomisers,
    seed_matches,
    verify_shuffle,
)
from p2p10.errors import ProtocolError

CONTEXT = b"game:0001|hand:3|seat:1"


def seeded_rng(label: str) -> Callable[[int], bytes]:
    """A deterministic byte source: SHA-512 in counter mode over ``label``."""
    counter = 0

    def draw(n: int) -> bytes:
        nonlocal counter
        out = b""
        while len(out) < n:
            out += hashlib.sha512(f"{label}/{counter}".encode()).digest()
            counter += 1
        return out[:n]

    return draw


def seed_of(k: int) -> bytes:
    return hashlib.sha256(k.to_bytes(8, "big")).digest()


def flip_each_byte(data: bytes) -> Iterator[bytes]:
    for i in range(len(data)):
        yield data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1 :]


def scalar(label: str) -> Scalar:
    return random_scalar(seeded_rng(label))


# ---------------------------------------------------------------- group


def test_card_points_are_108_distinct_non_identity_points_that_look_up_back() -> None:
    points = [card_point(c) for c in range(108)]
    assert len({p.to_bytes() for p in points}) == 108
    assert not any(p.is_identity() for p in points)
    assert all(card_of_point(p) == c for c, p in enumerate(points))
    assert card_point(5) is card_point(5)


def test_card_point_is_hash_to_curve_of_domain_and_card_byte() -> None:
    import rbcl

    digest = hashlib.sha512(b"p2p10/card/v1" + bytes([7])).digest()
    assert card_point(7).to_bytes() == bytes(rbcl.crypto_core_ristretto255_from_hash(digest))
    # Cards must not be small multiples of G: that would make them linkable.
    assert card_point(1) != GENERATOR


@pytest.mark.parametrize("card", [-1, 108, 256])
def test_card_point_out_of_range(card: int) -> None:
    with pytest.raises(ValueError):
        card_point(card)


def test_a_point_that_is_no_card_is_not_a_card() -> None:
    with pytest.raises(NotACard):
        card_of_point(GENERATOR)


def test_identity_point_refused_by_default_and_allowed_on_request() -> None:
    with pytest.raises(BadPoint):
        Point.from_bytes(bytes(32))
    assert Point.from_bytes(bytes(32), allow_identity=True).is_identity()


@pytest.mark.parametrize(
    "data",
    [
        b"",
        bytes(31),
        bytes(33),
        b"\xff" * 32,  # not a field element
        bytes([1]) + bytes(31),  # a negative field element: never a canonical ristretto encoding
        GENERATOR.to_bytes()[:31] + bytes([GENERATOR.to_bytes()[31] | 0x80]),  # high bit set
    ],
)
def test_invalid_point_encodings_rejected(data: bytes) -> None:
    with pytest.raises(BadPoint):
        Point.from_bytes(data)
    with pytest.raises(ProtocolError):
        Point(data)


def test_valid_point_round_trips() -> None:
    p = base_mul(scalar("p"))
    assert Point.from_bytes(p.to_bytes()) == p


@pytest.mark.parametrize(
    "value",
    [GROUP_ORDER, GROUP_ORDER + 1, 2 * GROUP_ORDER, 2**255 - 1, 2**256 - 1],
)
def test_non_reduced_scalars_rejected(value: int) -> None:
    with pytest.raises(BadScalar):
        Scalar.from_bytes(value.to_bytes(32, "little"))


@pytest.mark.parametrize("data", [b"", bytes(31), bytes(33), bytes(64)])
def test_scalars_of_wrong_length_rejected(data: bytes) -> None:
    with pytest.raises(BadScalar):
        Scalar.from_bytes(data)


def test_largest_and_smallest_scalars_accepted() -> None:
    assert Scalar.from_bytes((GROUP_ORDER - 1).to_bytes(32, "little")) == Scalar.from_int(-1)
    assert Scalar.from_bytes(bytes(32)).is_zero()


def test_scalar_and_point_arithmetic_agree() -> None:
    a, b = scalar("a"), scalar("b")
    assert base_mul(a + b) == base_mul(a) + base_mul(b)
    assert base_mul(a - b) == base_mul(a) - base_mul(b)
    assert mul(a, base_mul(b)) == base_mul(a * b) == mul(b, base_mul(a))
    assert base_mul(-a) + base_mul(a) == IDENTITY
    assert Scalar.from_int(3) + Scalar.from_int(-3) == Scalar.from_int(0)


def test_multiplication_reaching_the_identity_does_not_crash() -> None:
    assert mul(Scalar.from_int(0), GENERATOR).is_identity()
    assert mul(scalar("s"), IDENTITY).is_identity()
    assert base_mul(Scalar.from_int(0)).is_identity()


def test_random_scalar_is_deterministic_given_its_source_and_refuses_a_dead_source() -> None:
    assert scalar("x") == scalar("x") != scalar("y")
    with pytest.raises(ValueError):
        random_scalar(bytes)  # bytes(n) is n zero bytes: a broken source


def test_hash_to_scalar_separates_domains_and_frames_parts() -> None:
    assert hash_to_scalar(b"d1", b"x") != hash_to_scalar(b"d2", b"x")
    assert hash_to_scalar(b"d", b"ab", b"c") != hash_to_scalar(b"d", b"a", b"bc")
    assert hash_to_scalar(b"d", b"x") == hash_to_scalar(b"d", b"x")


def test_scalar_repr_does_not_leak_the_secret() -> None:
    s = scalar("secret")
    assert s.to_bytes().hex() not in repr(s)


# ---------------------------------------------------------------- Schnorr


def test_schnorr_proof_verifies_as_object_and_as_bytes() -> None:
    x = scalar("key")
    proof = prove_knowledge(x, CONTEXT, seeded_rng("nonce"))
    public = base_mul(x)
    assert verify_knowledge(public, proof, CONTEXT)
    assert verify_knowledge(public.to_bytes(), proof.to_bytes(), CONTEXT)
    assert SchnorrProof.from_bytes(proof.to_bytes()) == proof
    assert prove_knowledge(x, CONTEXT, seeded_rng("nonce")) == proof


def test_schnorr_proof_fails_on_every_tampered_byte() -> None:
    x = scalar("key")
    proof = prove_knowledge(x, CONTEXT).to_bytes()
    public = base_mul(x)
    for bad in flip_each_byte(proof):
        assert not verify_knowledge(public, bad, CONTEXT)
    for bad_public in flip_each_byte(public.to_bytes()):
        assert not verify_knowledge(bad_public, proof, CONTEXT)


def test_schnorr_proof_is_bound_to_context_and_key() -> None:
    x = scalar("key")
    proof = prove_knowledge(x, CONTEXT)
    assert not verify_knowledge(base_mul(x), proof, CONTEXT + b"|")
    assert not verify_knowledge(base_mul(x), proof, b"game:0001|hand:3|seat:2")
    assert not verify_knowledge(base_mul(scalar("other")), proof, CONTEXT)


def test_schnorr_rejects_identity_key_and_identity_commitment() -> None:
    # With P = 0 anyone could "prove" knowledge: R = s·G satisfies s·G = R + c·0.
    s = scalar("s")
    forged = SchnorrProof(base_mul(s), s)
    assert not verify_knowledge(IDENTITY, forged, CONTEXT)
    assert not verify_knowledge(bytes(32), forged.to_bytes(), CONTEXT)
    x = scalar("key")
    assert not verify_knowledge(base_mul(x), bytes(32) + s.to_bytes(), CONTEXT)


@pytest.mark.parametrize(
    "proof",
    [b"", bytes(63), bytes(65), b"\xff" * 64, GENERATOR.to_bytes() + GROUP_ORDER.to_bytes(32, "little")],
)
def test_schnorr_verify_never_raises_on_malformed_input(proof: bytes) -> None:
    public = base_mul(scalar("key"))
    assert verify_knowledge(public, proof, CONTEXT) is False
    assert verify_knowledge(b"\xff" * 32, proof, CONTEXT) is False
    assert verify_knowledge(b"short", prove_knowledge(scalar("key"), CONTEXT), CONTEXT) is False


def test_schnorr_proof_rejects_non_reduced_response() -> None:
    x = scalar("key")
    proof = prove_knowledge(x, CONTEXT)
    # s + ℓ is the same residue, but a second spelling of a proof must not be accepted.
    inflated = int.from_bytes(proof.response.to_bytes(), "little") + GROUP_ORDER
    if inflated < 2**256:
        raw = proof.commitment.to_bytes() + inflated.to_bytes(32, "little")
        assert not verify_knowledge(base_mul(x), raw, CONTEXT)
    with pytest.raises(ProtocolError):
        SchnorrProof.from_bytes(proof.commitment.to_bytes() + GROUP_ORDER.to_bytes(32, "little"))


def test_hedged_nonces_differ_between_statements_even_with_a_replayed_source() -> None:
    x = scalar("key")
    one = prove_knowledge(x, b"hand:1", seeded_rng("same"))
    two = prove_knowledge(x, b"hand:2", seeded_rng("same"))
    assert one.commitment != two.commitment


# ---------------------------------------------------------------- Chaum-Pedersen


def dleq_setup() -> tuple[Scalar, Point, Point, Point, DleqProof]:
    x = scalar("dleq-key")
    a = base_mul(scalar("dleq-base"))
    proof = prove_equal_logs(x, a, CONTEXT, seeded_rng("dleq-nonce"))
    return x, base_mul(x), a, token(x, a), proof


def test_dleq_proof_verifies_as_object_and_as_bytes() -> None:
    _, public, a, t, proof = dleq_setup()
    assert verify_equal_logs(public, a, t, proof, CONTEXT)
    assert verify_equal_logs(public.to_bytes(), a.to_bytes(), t.to_bytes(), proof.to_bytes(), CONTEXT)
    assert DleqProof.from_bytes(proof.to_bytes()) == proof


def test_dleq_proof_fails_on_every_tampered_byte() -> None:
    _, public, a, t, proof = dleq_setup()
    for bad in flip_each_byte(proof.to_bytes()):
        assert not verify_equal_logs(public, a, t, bad, CONTEXT)


def test_dleq_proof_fails_on_any_substituted_statement_point() -> None:
    _, public, a, t, proof = dleq_setup()
    other = base_mul(scalar("other"))
    assert not verify_equal_logs(other, a, t, proof, CONTEXT)
    assert not verify_equal_logs(public, other, t, proof, CONTEXT)
    assert not verify_equal_logs(public, a, other, proof, CONTEXT)
    assert not verify_equal_logs(public, a, t, proof, CONTEXT + b"|slot:9")


def test_dleq_catches_a_token_made_with_another_key() -> None:
    x, public, a, _, _ = dleq_setup()
    wrong_token = token(scalar("not-my-key"), a)
    proof = prove_equal_logs(x, a, CONTEXT)
    assert not verify_equal_logs(public, a, wrong_token, proof, CONTEXT)


def test_dleq_rejects_identity_anywhere_in_statement_or_commitments() -> None:
    _, public, a, t, proof = dleq_setup()
    zero = bytes(32)
    s = proof.response.to_bytes()
    assert not verify_equal_logs(zero, a, t, proof, CONTEXT)
    assert not verify_equal_logs(public, zero, zero, proof, CONTEXT)
    assert not verify_equal_logs(public, a, zero, proof, CONTEXT)
    assert not verify_equal_logs(public, a, t, zero + proof.commitment_a.to_bytes() + s, CONTEXT)
    assert not verify_equal_logs(public, a, t, proof.commitment_g.to_bytes() + zero + s, CONTEXT)


@pytest.mark.parametrize("proof", [b"", bytes(95), bytes(97), b"\xff" * 96])
def test_dleq_verify_never_raises_on_malformed_input(proof: bytes) -> None:
    _, public, a, t, _ = dleq_setup()
    assert verify_equal_logs(public, a, t, proof, CONTEXT) is False
    assert verify_equal_logs(b"\xff" * 32, b"x", t, proof, CONTEXT) is False


# ---------------------------------------------------------------- ElGamal and shuffles


def keys(n: int) -> tuple[list[Scalar], Point]:
    secrets = [scalar(f"player-{i}") for i in range(n)]
    return secrets, joint_key(base_mul(x) for x in secrets)


def open_all(deck: tuple[Ciphertext, ...], secrets: list[Scalar]) -> list[int]:
    return [open_card(c.b, [token(x, c.a) for x in secrets]) for c in deck]


@pytest.mark.parametrize("players", [2, 3])
def test_shuffle_by_every_player_then_open_gives_a_permutation_of_the_deck(players: int) -> None:
    secrets, joint = keys(players)
    deck = initial_deck()
    for seat in range(players):
        deck = apply_shuffle(deck, seed_of(seat), joint, b"hand:1|seat:%d" % seat)
    cards = open_all(deck, secrets)
    assert sorted(cards) == list(range(108))
    assert cards != list(range(108))
    # Every ciphertext was re-randomised: no A is the identity, every B hides its card point.
    assert not any(c.a.is_identity() for c in deck)
    assert not {c.b for c in deck} & {card_point(i) for i in range(108)}


def test_a_missing_token_does_not_open_the_card() -> None:
    secrets, joint = keys(3)
    c = rerandomise(encrypt_card(42), scalar("r"), joint)
    assert open_card(c.b, [token(x, c.a) for x in secrets]) == 42
    with pytest.raises(NotACard):
        open_card(c.b, [token(x, c.a) for x in secrets[:2]])


def test_ciphertext_wire_form_refuses_the_identity_in_either_component() -> None:
    _, joint = keys(2)
    c = rerandomise(encrypt_card(0), scalar("r"), joint)
    assert Ciphertext.from_bytes(c.to_bytes()) == c
    with pytest.raises(BadPoint):
        Ciphertext.from_bytes(encrypt_card(0).to_bytes())
    with pytest.raises(BadPoint):
        Ciphertext.from_bytes(c.a.to_bytes() + bytes(32))
    with pytest.raises(BadPoint):
        Ciphertext.from_bytes(c.to_bytes()[:63])


def test_no_token_for_an_unshuffled_card_and_no_identity_joint_key() -> None:
    with pytest.raises(BadPoint):
        token(scalar("x"), IDENTITY)
    p = base_mul(scalar("x"))
    with pytest.raises(BadPoint):
        joint_key([p, IDENTITY - p])  # a rogue key cancelling an honest one


def test_verify_shuffle_accepts_the_honest_shuffle() -> None:
    _, joint = keys(2)
    before = apply_shuffle(initial_deck(), seed_of(1), joint, b"seat:0")
    after = apply_shuffle(before, seed_of(2), joint, b"seat:1")
    assert verify_shuffle(before, after, seed_of(2), joint, b"seat:1")


def test_verify_shuffle_catches_swaps_duplicates_and_wrong_seeds() -> None:
    _, joint = keys(2)
    before = apply_shuffle(initial_deck(), seed_of(1), joint, b"seat:0")
    after = list(apply_shuffle(before, seed_of(2), joint, b"seat:1"))

    def ok(deck: list[Ciphertext], seed: bytes = seed_of(2), context: bytes = b"seat:1") -> bool:
        return verify_shuffle(before, deck, seed, joint, context)

    swapped = after.copy()
    swapped[3], swapped[70] = swapped[70], swapped[3]
    duplicated = after.copy()
    duplicated[10] = duplicated[11]
    substituted = after.copy()
    substituted[5] = rerandomise(encrypt_card(104), scalar("r"), joint)
    assert not ok(swapped)
    assert not ok(duplicated)
    assert not ok(substituted)
    assert not ok(after[:-1])
    assert not ok(after, seed=seed_of(3))
    assert not ok(after, context=b"seat:2")
    assert not ok(after, seed=b"short")
    assert not verify_shuffle(before, after, seed_of(2), keys(3)[1], b"seat:1")


def test_seed_commitment_binds_seed_and_context() -> None:
    commitment = commit_seed(seed_of(1), CONTEXT)
    assert len(commitment) == 32
    assert seed_matches(commitment, seed_of(1), CONTEXT)
    assert not seed_matches(commitment, seed_of(2), CONTEXT)
    assert not seed_matches(commitment, seed_of(1), CONTEXT + b"x")
    assert not seed_matches(commitment, b"short", CONTEXT)
    with pytest.raises(ProtocolError):
        commit_seed(b"short", CONTEXT)


def test_derivations_are_deterministic_and_context_separated() -> None:
    perm = derive_permutation(seed_of(1), 108, CONTEXT)
    assert sorted(perm) == list(range(108))
    assert perm == derive_permutation(seed_of(1), 108, CONTEXT)
    assert perm != derive_permutation(seed_of(1), 108, CONTEXT + b"x")
    scalars = derive_rerandomisers(seed_of(1), 108, CONTEXT)
    assert len(set(scalars)) == 108 and not any(s.is_zero() for s in scalars)
    assert derive_permutation(seed_of(1), 0, CONTEXT) == ()
    assert derive_permutation(seed_of(1), 1, CONTEXT) == (0,)


def test_rejection_sampling_discards_the_biased_tail() -> None:
    # 2³² ≡ 1 (mod 3), so the top draw 2³²−1 would make residue 0 slightly likelier; it is skipped.
    assert _uniform_below(iter([2**32 - 1, 5]), 3) == 2
    assert _uniform_below(iter([2**32 - 2]), 3) == (2**32 - 2) % 3


def test_where_card_zero_lands_is_close_to_uniform() -> None:
    # Fixed seeds, so this cannot flake; the bound is ~6 standard deviations above the χ²
    # mean (107 degrees of freedom: mean 107, sd ≈ 14.6), so only a real bias trips it.
    trials, size = 108 * 60, 108
    landing = Counter(derive_permutation(seed_of(k), size, b"uniformity").index(0) for k in range(trials))
    expected = trials / size
    chi_square = sum((landing[i] - expected) ** 2 / expected for i in range(size))
    assert chi_square < 200


def test_all_permutations_of_three_are_about_equally_likely() -> None:
    trials = 6000
    counts = Counter(derive_permutation(seed_of(k), 3, b"three") for k in range(trials))
    assert len(counts) == 6
    expected = trials / 6
    chi_square = sum((n - expected) ** 2 / expected for n in counts.values())
    assert chi_square < 30  # 5 degrees of freedom: p < 10⁻⁵
