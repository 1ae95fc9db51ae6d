"""Non-interactive zero-knowledge proofs over ristretto255 (Fiat-Shamir with SHA-512).

* Schnorr proof of knowledge of ``x`` with ``P = x·G``: published with every per-hand key, so
  nobody can choose a key as a function of the others' keys (the rogue-key attack on ``H = Σ P_i``).
* Chaum-Pedersen proof that ``log_G P = log_A T``: published with every decryption token
  ``T = x·A``, so a token is provably made with the key the player committed to.

The challenge hashes a domain tag, the whole statement (generator included), every commitment
and a caller-supplied ``context`` (game id, hand, seat, slot…), so a proof cannot be replayed
in another game, hand, seat or deck position.

Verifiers return ``bool`` and never raise on malformed input: they accept wire bytes or parsed
values, and anything invalid, including the identity in a statement or commitment, is ``False``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from p2p10.crypto.group import (
    GENERATOR,
    POINT_BYTES,
    SCALAR_BYTES,
    Point,
    RandomBytes,
    Scalar,
    base_mul,
    hash_to_scalar,
    mul,
)
from p2p10.crypto.verdicts import Verdicts
from p2p10.errors import ProtocolError

SCHNORR_DOMAIN = b"p2p10/schnorr/v1"
DLEQ_DOMAIN = b"p2p10/dleq/v1"
NONCE_DOMAIN = b"p2p10/nonce/v1"
NONCE_RANDOM_BYTES = 32


# A verdict is asked for again only within its hand (by each peer of the process, once); a
# 6-seat hand has some 700 token proofs, so these sizes hold many hands (a few MB at most).
KNOWLEDGE_VERDICTS = Verdicts(b"p2p10/verdict/schnorr", 4096)
EQUAL_LOGS_VERDICTS = Verdicts(b"p2p10/verdict/dleq", 16384)


class BadProof(ProtocolError):
    """Proof bytes of the wrong length or with an invalid component."""


@dataclass(frozen=True, slots=True)
class SchnorrProof:
    """``(R, s)`` with ``R = k·G`` and ``s = k + c·x``; 64 bytes on the wire."""

    commitment: Point
    response: Scalar

    WIRE_BYTES = POINT_BYTES + SCALAR_BYTES

    def to_bytes(self) -> bytes:
        """``R ‖ s``."""
        return self.commitment.to_bytes() + self.response.to_bytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> SchnorrProof:
        """Parse ``R ‖ s``; raises a ``ProtocolError`` for a wrong length, a bad point or scalar."""
        if len(data) != cls.WIRE_BYTES:
            raise BadProof(f"a Schnorr proof is exactly {cls.WIRE_BYTES} bytes")
        return cls(Point.from_bytes(data[:POINT_BYTES]), Scalar.from_bytes(data[POINT_BYTES:]))


@dataclass(frozen=True, slots=True)
class DleqProof:
    """``(R_G, R_A, s)`` with ``R_G = k·G``, ``R_A = k·A``, ``s = k + c·x``; 96 bytes on the wire."""

    commitment_g: Point
    commitment_a: Point
    response: Scalar

    WIRE_BYTES = 2 * POINT_BYTES + SCALAR_BYTES

    def to_bytes(self) -> bytes:
        """``R_G ‖ R_A ‖ s``."""
        return self.commitment_g.to_bytes() + self.commitment_a.to_bytes() + self.response.to_bytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> DleqProof:
        """Parse ``R_G ‖ R_A ‖ s``; raises a ``ProtocolError`` for any malformed component."""
        if len(data) != cls.WIRE_BYTES:
            raise BadProof(f"a Chaum-Pedersen proof is exactly {cls.WIRE_BYTES} bytes")
        return cls(
            Point.from_bytes(data[:POINT_BYTES]),
            Point.from_bytes(data[POINT_BYTES : 2 * POINT_BYTES]),
            Scalar.from_bytes(data[2 * POINT_BYTES :]),
        )


def _nonce(secret: Scalar, statement: tuple[Point, ...], context: bytes, rng_bytes: RandomBytes) -> Scalar:
    # Hedged nonce: fresh randomness mixed with the secret and the statement, so a weak or
    # replayed random source (a seeded test source included) never reuses k for two statements,
    # which would reveal x.
    return hash_to_scalar(
        NONCE_DOMAIN,
        secret.to_bytes(),
        *(point.to_bytes() for point in statement),
        context,
        rng_bytes(NONCE_RANDOM_BYTES),
    )


def schnorr_challenge(public: Point, commitment: Point, context: bytes) -> Scalar:
    """``c = H(domain, G, P, R, context)``."""
    return hash_to_scalar(
        SCHNORR_DOMAIN, GENERATOR.to_bytes(), public.to_bytes(), commitment.to_bytes(), context
    )


def dleq_challenge(
    public: Point, base: Point, token: Point, commitment_g: Point, commitment_a: Point, context: bytes
) -> Scalar:
    """``c = H(domain, G, P, A, T, R_G, R_A, context)``."""
    return hash_to_scalar(
        DLEQ_DOMAIN,
        GENERATOR.to_bytes(),
        public.to_bytes(),
        base.to_bytes(),
        token.to_bytes(),
        commitment_g.to_bytes(),
        commitment_a.to_bytes(),
        context,
    )


def prove_knowledge(secret: Scalar, context: bytes, rng_bytes: RandomBytes = os.urandom) -> SchnorrProof:
    """Prove knowledge of ``secret`` for the public key ``secret·G``, bound to ``context``."""
    public = base_mul(secret)
    k = _nonce(secret, (public,), context, rng_bytes)
    commitment = base_mul(k)
    challenge = schnorr_challenge(public, commitment, context)
    proof = SchnorrProof(commitment, k + challenge * secret)
    if not (public.is_identity() or commitment.is_identity()):
        # True by completeness: this process need not check it again (verdicts.py).
        KNOWLEDGE_VERDICTS.record(KNOWLEDGE_VERDICTS.key(public.to_bytes(), proof.to_bytes(), context), True)
    return proof


def prove_equal_logs(
    secret: Scalar, base: Point, context: bytes, rng_bytes: RandomBytes = os.urandom
) -> DleqProof:
    """Prove ``log_G (secret·G) = log_base (secret·base)``, bound to ``context``.

    The token itself is ``secret·base`` (``elgamal.token``); it is part of the statement, not
    of the proof.
    """
    public = base_mul(secret)
    token = mul(secret, base)
    k = _nonce(secret, (public, base, token), context, rng_bytes)
    commitment_g = base_mul(k)
    commitment_a = mul(k, base)
    challenge = dleq_challenge(public, base, token, commitment_g, commitment_a, context)
    proof = DleqProof(commitment_g, commitment_a, k + challenge * secret)
    if not any(p.is_identity() for p in (public, base, token, commitment_g, commitment_a)):
        # True by completeness: this process need not check it again (verdicts.py).
        EQUAL_LOGS_VERDICTS.record(EQUAL_LOGS_VERDICTS.key(
            public.to_bytes(), base.to_bytes(), token.to_bytes(), proof.to_bytes(), context), True)
    return proof


def _parse_point(value: Point | bytes) -> Point:
    point = value if isinstance(value, Point) else Point.from_bytes(value)
    if point.is_identity():
        raise ProtocolError("the identity point is not allowed in a proof statement")
    return point


def _wire(*values: Point | SchnorrProof | DleqProof | bytes) -> tuple[bytes, ...] | None:
    """The encodings of a check's inputs (the key of its verdict), or None for a value of no
    known type."""
    out = []
    for value in values:
        if isinstance(value, Point | SchnorrProof | DleqProof):
            out.append(value.to_bytes())
        elif isinstance(value, bytes):
            out.append(value)
        else:
            return None
    return tuple(out)


def verify_knowledge(public: Point | bytes, proof: SchnorrProof | bytes, context: bytes) -> bool:
    """True when ``proof`` shows knowledge of ``log_G public`` for ``context``; never raises.
    A verdict is kept (``KNOWLEDGE_VERDICTS``): peers sharing a process check a proof once."""
    inputs = _wire(public, proof, context)
    if inputs is None:
        return False
    return KNOWLEDGE_VERDICTS.check(KNOWLEDGE_VERDICTS.key(*inputs),
                                    lambda: _check_knowledge(public, proof, context))


def _check_knowledge(public: Point | bytes, proof: SchnorrProof | bytes, context: bytes) -> bool:
    try:
        key = _parse_point(public)
        parsed = proof if isinstance(proof, SchnorrProof) else SchnorrProof.from_bytes(proof)
        commitment = _parse_point(parsed.commitment)
    except ProtocolError:
        return False
    challenge = schnorr_challenge(key, commitment, context)
    return base_mul(parsed.response) == commitment + mul(challenge, key)


def verify_equal_logs(
    public: Point | bytes, base: Point | bytes, token: Point | bytes, proof: DleqProof | bytes, context: bytes
) -> bool:
    """True when ``proof`` shows ``log_G public = log_base token`` for ``context``; never raises.
    A verdict is kept (``EQUAL_LOGS_VERDICTS``): peers sharing a process check a token once."""
    inputs = _wire(public, base, token, proof, context)
    if inputs is None:
        return False
    return EQUAL_LOGS_VERDICTS.check(EQUAL_LOGS_VERDICTS.key(*inputs),
                                     lambda: _check_equal_logs(public, base, token, proof, context))


def _check_equal_logs(
    public: Point | bytes, base: Point | bytes, token: Point | bytes, proof: DleqProof | bytes, context: bytes
) -> bool:
    try:
        key = _parse_point(public)
        a = _parse_point(base)
        t = _parse_point(token)
        parsed = proof if isinstance(proof, DleqProof) else DleqProof.from_bytes(proof)
        commitment_g = _parse_point(parsed.commitment_g)
        commitment_a = _parse_point(parsed.commitment_a)
    except ProtocolError:
        return False
    challenge = dleq_challenge(key, a, t, commitment_g, commitment_a, context)
    return base_mul(parsed.response) == commitment_g + mul(challenge, key) and mul(
        parsed.response, a
    ) == commitment_a + mul(challenge, t)
