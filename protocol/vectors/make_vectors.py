"""Generate ``crypto_v1.json``: golden vectors for the dealing cryptography.

A second implementation can check itself against the file: the card points, the hash framing,
both Fiat-Shamir challenges and proofs, a full seeded shuffle derivation, the four contexts of
PROTOCOL.md section 2.9, a proof of shuffle of four cards with every intermediate value
(section 2.13), and hand 0 of a two-seat game dealt up to its first discard (hand keys and
their proofs, seed commitments, both shuffle steps of round 0 as deck bytes with their proofs
of shuffle, one ciphertext, and the public opening of the first discard from its two tokens). Every input is
fixed and no random source is read, so running this again must reproduce the committed file
byte for byte (``tests/test_vectors.py`` checks that).

Usage: ``python protocol/vectors/make_vectors.py`` rewrites the file next to this script.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from p2p10.cards import DECK_SIZE
from p2p10.crypto.elgamal import (
    Deck,
    encrypt_card,
    initial_deck,
    joint_key,
    open_card,
    open_point,
    rerandomise,
    token,
)
from p2p10.crypto.group import CARD_DOMAIN, Scalar, base_mul, card_point, frame
from p2p10.crypto.proofs import (
    DLEQ_DOMAIN,
    NONCE_DOMAIN,
    SCHNORR_DOMAIN,
    dleq_challenge,
    prove_equal_logs,
    prove_knowledge,
    schnorr_challenge,
)
from p2p10.crypto.shuffle import (
    COMMITMENT_DOMAIN,
    PERMUTATION_DOMAIN,
    RERANDOMISER_DOMAIN,
    apply_shuffle,
    commit_seed,
    derive_permutation,
    derive_rerandomisers,
    shuffle_and_prove,
)
from p2p10.crypto.shuffle_proof import (
    CHALLENGE_DOMAIN,
    GENERATORS_DOMAIN,
    PERMUTATION_CHALLENGE_DOMAIN,
    PROOF_DOMAIN,
    ShuffleProof,
    generators,
    statement_digest,
)
from p2p10.crypto.shuffle_proof import NONCE_DOMAIN as PROOF_NONCE_DOMAIN
from p2p10.game_fields import HAND_SIZE
from p2p10.hand_crypto import key_context, seed_context, shuffle_context, token_context

VECTORS_PATH = Path(__file__).with_name("crypto_v1.json")
LABEL = b"p2p10/vectors/v1/"


def fixed_scalar(name: str) -> Scalar:
    return Scalar.reduce(hashlib.sha512(LABEL + name.encode()).digest())


def fixed_bytes(name: str) -> bytes:
    return hashlib.sha256(LABEL + name.encode()).digest()


def replay(data: bytes) -> Callable[[int], bytes]:
    """A random source that returns ``data`` once, exactly as long as asked for."""

    def draw(n: int) -> bytes:
        if n != len(data):
            raise ValueError(f"the vector supplies {len(data)} random bytes, {n} were asked for")
        return data

    return draw


# The game id of the context and dealing vectors: the bytes 00 01 ... 0f, as in the example of
# PROTOCOL.md section 2.9.
GAME_ID = bytes(range(16))
DEALING_SEATS = 2


def deck_hex(deck: Deck) -> list[str]:
    """A deck as one hex string ``A ‖ B`` per position."""
    return [c.to_bytes().hex() for c in deck]


def build_contexts() -> dict[str, Any]:
    """One example of each context of PROTOCOL.md section 2.9. The numbers are chosen so that
    more than one byte of a ``u64be`` is in use (slot 300 is ``00...012c``)."""
    g = GAME_ID
    return {
        "rule": "frame(tag, game_id, u64be(...) for each number), numbers as 8 bytes big-endian",
        "game_id": g.hex(),
        "key_ctx": {"hand": 0, "seat": 1, "bytes": key_context(g, 0, 1).hex()},
        "seed_ctx": {"hand": 5, "seat": 3, "bytes": seed_context(g, 5, 3).hex()},
        "shuffle_ctx": {"hand": 7, "round": 2, "seat": 4, "bytes": shuffle_context(g, 7, 2, 4).hex()},
        "token_ctx": {"hand": 258, "slot": 300, "seat": 5, "bytes": token_context(g, 258, 300, 5).hex()},
    }


def build_dealing() -> dict[str, Any]:
    """Hand 0 of a two-seat game, as the log would carry it, up to the opening of the first
    discard: each seat's hand key (with its Schnorr proof under ``key_ctx``) and seed
    commitment (under ``seed_ctx``); the joint key; round 0's two shuffle steps (seat 0 from
    the initial deck, seat 1 from seat 0's deck), each under its ``shuffle_ctx``; and both
    seats' tokens for the first discard (slot 10k = 20), with their Chaum-Pedersen proofs under
    ``token_ctx``, which open it. Also one ciphertext made from a card, a scalar and the joint
    key, to check the encoding alone."""
    g, hand = GAME_ID, 0
    secrets = [fixed_scalar(f"dealing-secret-{s}") for s in range(DEALING_SEATS)]
    seeds = [fixed_bytes(f"dealing-shuffle-seed-{s}") for s in range(DEALING_SEATS)]
    publics = [base_mul(x) for x in secrets]
    joint = joint_key(publics)
    seats = []
    for s, (x, seed) in enumerate(zip(secrets, seeds, strict=True)):
        key_random = fixed_bytes(f"dealing-key-nonce-{s}")
        key_ctx = key_context(g, hand, s)
        seed_ctx = seed_context(g, hand, s)
        seats.append({
            "seat": s,
            "secret": x.to_bytes().hex(),
            "public": publics[s].to_bytes().hex(),
            "key_context": key_ctx.hex(),
            "key_nonce_random": key_random.hex(),
            "key_proof": prove_knowledge(x, key_ctx, replay(key_random)).to_bytes().hex(),
            "seed": seed.hex(),
            "seed_context": seed_ctx.hex(),
            "commitment": commit_seed(seed, seed_ctx).hex(),
        })
    deck = initial_deck()
    steps = []
    for s, seed in enumerate(seeds):
        context = shuffle_context(g, hand, 0, s)
        deck, proof = shuffle_and_prove(deck, seed, joint, context)
        steps.append({
            "seat": s,
            "round": 0,
            "before": "the initial deck" if s == 0 else f"the deck after seat {s - 1}'s step",
            "context": context.hex(),
            "permutation": list(derive_permutation(seed, DECK_SIZE, context)),
            "after": deck_hex(deck),
            "proof": proof.to_bytes().hex(),
        })

    card, r = 42, fixed_scalar("ciphertext-r")
    cipher = rerandomise(encrypt_card(card), r, joint)

    slot = HAND_SIZE * DEALING_SEATS  # the first discard
    opened = deck[slot]
    tokens = []
    for s, x in enumerate(secrets):
        context = token_context(g, hand, slot, s)
        token_random = fixed_bytes(f"dealing-token-nonce-{s}")
        tokens.append({
            "seat": s,
            "token": token(x, opened.a).to_bytes().hex(),
            "context": context.hex(),
            "nonce_random": token_random.hex(),
            "proof": prove_equal_logs(x, opened.a, context, replay(token_random)).to_bytes().hex(),
        })
    parts = [token(x, opened.a) for x in secrets]
    return {
        "about": ("hand 0 of a two-seat game (seats 0 and 1 as in the protocol; people call them "
                  "seats 1 and 2) dealt up to the public opening of its first discard"),
        "game_id": g.hex(),
        "hand": hand,
        "seats": seats,
        "joint_key": joint.to_bytes().hex(),
        "initial_deck": "position i is (identity, card point of card i) for i = 0 ... 107",
        "shuffle_steps": steps,
        "ciphertext": {
            "rule": "rerandomise((identity, M_card), r, joint key) = (r*G, M_card + r*H), on the wire A || B",
            "card": card,
            "r": r.to_bytes().hex(),
            "a": cipher.a.to_bytes().hex(),
            "b": cipher.b.to_bytes().hex(),
            "bytes": cipher.to_bytes().hex(),
        },
        "opening": {
            "rule": "M = B - sum of every seat's token x_s*A; the card is the one whose card point is M",
            "slot": slot,
            "ciphertext": opened.to_bytes().hex(),
            "tokens": tokens,
            "point": open_point(opened.b, parts).to_bytes().hex(),
            "card": open_card(opened.b, parts),
        },
    }


def build_shuffle_proof() -> dict[str, Any]:
    """A proof of shuffle of four cards (section 2.13), small enough to follow by hand: the
    statement (a deck already shuffled once, so no ``A`` is the identity), the witness, the
    generators, the digests and challenges, and the proof, whole and in its parts."""
    secret = fixed_scalar("shuffle-proof-joint-secret")
    joint = base_mul(secret)
    cards = [5, 40, 77, 101]
    before = apply_shuffle(initial_deck(cards), fixed_bytes("shuffle-proof-first-seed"), joint, b"first")
    seed = fixed_bytes("shuffle-proof-seed")
    context = b"p2p10/vectors/shuffle-proof"
    after, proof = shuffle_and_prove(before, seed, joint, context)
    size = len(cards)
    digest = statement_digest(before, after, joint, context)
    commitments = b"".join(proof.commitments)
    bound = hashlib.sha512(frame(PERMUTATION_CHALLENGE_DOMAIN, digest, commitments)).digest()
    return {
        "about": "the shuffle, with its proof, of a deck of 4 cards that was shuffled once before",
        "domains": {"statement": PROOF_DOMAIN.decode(), "generators": GENERATORS_DOMAIN.decode(),
                    "permutation_challenges": PERMUTATION_CHALLENGE_DOMAIN.decode(),
                    "challenge": CHALLENGE_DOMAIN.decode(), "prover_randomness": PROOF_NONCE_DOMAIN.decode()},
        "joint_secret": secret.to_bytes().hex(),
        "joint_key": joint.to_bytes().hex(),
        "context": context.hex(),
        "seed": seed.hex(),
        "permutation": list(derive_permutation(seed, size, context)),
        "rerandomisers": [r.to_bytes().hex() for r in derive_rerandomisers(seed, size, context)],
        "before": deck_hex(before),
        "after": deck_hex(after),
        "generators": [point.hex() for point in generators(context, size)],
        "statement_digest": digest.hex(),
        "permutation_digest": bound.hex(),
        "challenge": proof.challenge.to_bytes(32, "little").hex(),
        "parts": {
            "commitments": [c.hex() for c in proof.commitments],
            "chain": [c.hex() for c in proof.chain],
            "s1": proof.s1.to_bytes(32, "little").hex(),
            "s2": proof.s2.to_bytes(32, "little").hex(),
            "s3": proof.s3.to_bytes(32, "little").hex(),
            "s4": proof.s4.to_bytes(32, "little").hex(),
            "chain_responses": [s.to_bytes(32, "little").hex() for s in proof.chain_responses],
            "responses": [s.to_bytes(32, "little").hex() for s in proof.responses],
        },
        "proof": proof.to_bytes().hex(),
        "proof_bytes": ShuffleProof.wire_bytes(size),
    }


def build_vectors() -> dict[str, Any]:
    """Every vector, as JSON-ready data (bytes as lowercase hex)."""
    context = b"game:00000000000000000000000000000001|hand:1|seat:0"

    secret = fixed_scalar("schnorr-secret")
    public = base_mul(secret)
    schnorr_random = fixed_bytes("schnorr-nonce")
    schnorr = prove_knowledge(secret, context, replay(schnorr_random))

    dleq_secret = fixed_scalar("dleq-secret")
    dleq_public = base_mul(dleq_secret)
    base = base_mul(fixed_scalar("dleq-base"))
    dleq_token = token(dleq_secret, base)
    dleq_random = fixed_bytes("dleq-nonce")
    dleq = prove_equal_logs(dleq_secret, base, context, replay(dleq_random))

    seed = fixed_bytes("shuffle-seed")
    return {
        "version": 1,
        "group": "ristretto255 (RFC 9496 encodings), scalars 32-byte little-endian, reduced",
        "framing": "hash inputs are parts, each prefixed with its length as 4 bytes big-endian",
        "hash_to_scalar": "SHA-512(framed(domain, parts...)) reduced mod l",
        "card_points": {
            "rule": "from_hash(SHA-512(domain || card as one byte))",
            "domain": CARD_DOMAIN.decode(),
            "points": [card_point(card).to_bytes().hex() for card in range(DECK_SIZE)],
        },
        "schnorr": {
            "domain": SCHNORR_DOMAIN.decode(),
            "challenge_rule": "hash_to_scalar(domain, G, P, R, context)",
            "nonce_rule": "hash_to_scalar(nonce_domain, x, P, context, nonce_random)",
            "nonce_domain": NONCE_DOMAIN.decode(),
            "secret": secret.to_bytes().hex(),
            "public": public.to_bytes().hex(),
            "context": context.hex(),
            "nonce_random": schnorr_random.hex(),
            "challenge": schnorr_challenge(public, schnorr.commitment, context).to_bytes().hex(),
            "proof": schnorr.to_bytes().hex(),
        },
        "dleq": {
            "domain": DLEQ_DOMAIN.decode(),
            "challenge_rule": "hash_to_scalar(domain, G, P, A, T, R_G, R_A, context)",
            "nonce_rule": "hash_to_scalar(nonce_domain, x, P, A, T, context, nonce_random)",
            "nonce_domain": NONCE_DOMAIN.decode(),
            "secret": dleq_secret.to_bytes().hex(),
            "public": dleq_public.to_bytes().hex(),
            "base": base.to_bytes().hex(),
            "token": dleq_token.to_bytes().hex(),
            "context": context.hex(),
            "nonce_random": dleq_random.hex(),
            "challenge": dleq_challenge(
                dleq_public, base, dleq_token, dleq.commitment_g, dleq.commitment_a, context
            )
            .to_bytes()
            .hex(),
            "proof": dleq.to_bytes().hex(),
        },
        "shuffle": {
            "prf": (
                "BLAKE2b-512 keyed with the seed over framed(domain, context, counter as 8 bytes big-endian)"
            ),
            "permutation_rule": (
                "Fisher-Yates from i = n-1 down to 1, j uniform in [0, i] by rejection sampling of "
                "4-byte big-endian draws (16 per PRF block); after[i] = rerandomise(before[perm[i]], r[i])"
            ),
            "permutation_domain": PERMUTATION_DOMAIN.decode(),
            "rerandomiser_domain": RERANDOMISER_DOMAIN.decode(),
            "rerandomiser_rule": "r[i] = PRF(rerandomiser_domain, context, i) reduced mod l",
            "commitment_domain": COMMITMENT_DOMAIN.decode(),
            "commitment_rule": "BLAKE2b-256(framed(commitment_domain, context, seed))",
            "seed": seed.hex(),
            "context": context.hex(),
            "commitment": commit_seed(seed, context).hex(),
            "permutation": list(derive_permutation(seed, DECK_SIZE, context)),
            "rerandomisers": [r.to_bytes().hex() for r in derive_rerandomisers(seed, DECK_SIZE, context)],
        },
        "contexts": build_contexts(),
        "shuffle_proof": build_shuffle_proof(),
        "dealing": build_dealing(),
    }


def render(vectors: dict[str, Any]) -> str:
    """The exact text of the vectors file."""
    return json.dumps(vectors, indent=1) + "\n"


def main() -> None:
    """Write the vectors file."""
    VECTORS_PATH.write_text(render(build_vectors()), encoding="utf-8")


if __name__ == "__main__":
    main()
