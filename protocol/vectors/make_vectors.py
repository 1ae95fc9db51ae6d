"""Generate ``crypto_v1.json``: golden vectors for the dealing cryptography.

A second implementation can check itself against the file: the card points, the hash framing,
both Fiat-Shamir challenges and proofs, and a full seeded shuffle derivation. Every input is
fixed, so running this again must reproduce the committed file byte for byte
(``tests/test_vectors.py`` checks that).

Usage: ``python protocol/vectors/make_vectors.py`` rewrites the file next to this script.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from p2p10.cards import DECK_SIZE
from p2p10.crypto.elgamal import token
from p2p10.crypto.group import CARD_DOMAIN, Scalar, base_mul, card_point
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
    commit_seed,
    derive_permutation,
    derive_rerandomisers,
)

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
    }


def render(vectors: dict[str, Any]) -> str:
    """The exact text of the vectors file."""
    return json.dumps(vectors, indent=1) + "\n"


def main() -> None:
    """Write the vectors file."""
    VECTORS_PATH.write_text(render(build_vectors()), encoding="utf-8")


if __name__ == "__main__":
    main()
