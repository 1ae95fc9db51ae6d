"""A zero-knowledge proof that a shuffle step is a permutation and re-encryption of its input.

Terelius–Wikström, as written out by Haenni, Locher, Koenig and Dubuis, *Pseudo-Code
Algorithms for Verifiable Re-Encryption Mix-Nets* (FC 2017 workshops), ``GenShuffleProof`` and
``CheckShuffleProof`` (the construction of Verificatum, CHVote and Belenios), in additive
notation over ristretto255 and for this project's ElGamal orientation (PROTOCOL §2.7):

    before  e_j = (A_j, B_j)                         j = 0 … N−1
    after   ẽ_i = e_π(i) + (r̃_i·G, r̃_i·H)            i = 0 … N−1    (shuffle.py's convention)

The statement is (``before``, ``after``, the joint key ``H``, the context); the witness is the
permutation π and the re-randomisers r̃. The proof carries

* a commitment to the permutation, ``c_π(i) = r_π(i)·G + h_i``;
* a commitment chain to the permuted challenges, ``ĉ_i = r̂_i·G + ũ_i·ĉ_{i−1}`` from ``ĉ_{−1} = h``;
* one Fiat–Shamir challenge ``c`` and the responses ``s1 … s4``, ``ŝ_i``, ``s'_i``.

(Haenni et al. send the prover's commitments ``t``; this sends the challenge instead, as the
Schnorr proofs here do: the verifier recomputes every ``t`` and the challenge from them, which
is the same check in 32 bytes instead of ``32·(N+5)``.)

The generators ``h_0 … h_{N−1}, h`` are hashed into the group (``from_hash``) under a domain tag
and the shuffle context, which binds them to the game, hand, round and seat: nobody knows a
relation between them, or between them and ``G``. Every hash input is framed (§2.2); the
challenges cover the whole statement (context, ``G``, ``H``, the generators, both decks), the
permutation commitment and every commitment of the proof.

Arithmetic: every group operation is libsodium's (:mod:`p2p10.primitives`). Points of the proof
and of the decks are checked once where they are read (P1–P4 of PROTOCOL §2.1); a point libsodium has
just computed is valid by construction and is not checked again. Scalars are Python integers
modulo ℓ inside the proof (exact arithmetic; they only become bytes for libsodium), and a
received scalar must be canonical (S1–S2).

``verify_shuffle_proof`` never raises on malformed input: anything wrong is ``False``. It keeps
the verdicts of the proofs it has checked (``verdicts.Verdicts``, keyed by a hash of every
input), so that where several peers share one process each proof is checked once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from p2p10 import primitives
from p2p10.crypto.elgamal import Ciphertext
from p2p10.crypto.group import (
    GENERATOR,
    GROUP_ORDER,
    MULTIPLICATIONS,
    POINT_BYTES,
    SCALAR_BYTES,
    Point,
    frame,
)
from p2p10.crypto.verdicts import Verdicts
from p2p10.errors import ProtocolError

PROOF_DOMAIN = b"p2p10/shuffle-proof/v1"
GENERATORS_DOMAIN = b"p2p10/shuffle-proof/generators/v1"
PERMUTATION_CHALLENGE_DOMAIN = b"p2p10/shuffle-proof/u/v1"
CHALLENGE_DOMAIN = b"p2p10/shuffle-proof/challenge/v1"
NONCE_DOMAIN = b"p2p10/shuffle-proof/nonce/v1"

_L = GROUP_ORDER
_ZERO = bytes(POINT_BYTES)
_G = GENERATOR.to_bytes()


class BadShuffleProof(ProtocolError):
    """Proof bytes of the wrong length, or with a point or scalar that does not parse."""


# ------------------------------------------------------------------------- raw group operations
# Encodings in, encodings out, with no validation: every input here is either one of our own
# results or a point that was checked where it was read.


def _mul(scalar: int, point: bytes) -> bytes:
    MULTIPLICATIONS["mul"] += 1
    return bytes(primitives.scalarmult(scalar.to_bytes(32, "little"), point))


def _base(scalar: int) -> bytes:
    MULTIPLICATIONS["base_mul"] += 1
    return bytes(primitives.scalarmult_base(scalar.to_bytes(32, "little")))


_add = primitives.point_add
_sub = primitives.point_sub


def _sum(points: Sequence[bytes]) -> bytes:
    total = _ZERO
    for point in points:
        total = _add(total, point)
    return bytes(total)


def _combination(scalars: Sequence[int], points: Sequence[bytes]) -> bytes:
    """``Σ scalars_i · points_i``; a term whose point is the identity costs nothing (the
    initial deck's ``A`` components are the identity)."""
    total = _ZERO
    for scalar, point in zip(scalars, points, strict=True):
        if point != _ZERO:
            total = _add(total, _mul(scalar, point))
    return bytes(total)


def _scalar(*parts: bytes) -> int:
    """``H_s`` of PROTOCOL §2.2: SHA-512 of the framed parts, as a little-endian integer mod ℓ."""
    return int.from_bytes(hashlib.sha512(frame(*parts)).digest(), "little") % _L


def _num(value: int) -> bytes:
    return value.to_bytes(8, "big")


@lru_cache(maxsize=64)
def generators(context: bytes, size: int) -> tuple[bytes, ...]:
    """``h_0 … h_{size−1}, h``: ``size + 1`` independent generators for a proof under
    ``context``, each ``from_hash(SHA-512(frame(domain, context, u64be(i))))``."""
    return tuple(
        bytes(primitives.point_from_hash(
            hashlib.sha512(frame(GENERATORS_DOMAIN, context, _num(i))).digest()))
        for i in range(size + 1)
    )


@lru_cache(maxsize=64)
def _generator_sum(context: bytes, size: int) -> bytes:
    return _sum(generators(context, size)[:size])


# ---------------------------------------------------------------------------------- the proof


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    """A proof of shuffle of ``N`` ciphertexts: ``128·N + 160`` bytes on the wire, as

        c_0 … c_{N−1} ‖ ĉ_0 … ĉ_{N−1} ‖ challenge ‖ s1 ‖ s2 ‖ s3 ‖ s4 ‖ ŝ_0 … ŝ_{N−1} ‖ s'_0 … s'_{N−1}

    (points and scalars of 32 bytes). Points are encodings that parse (P1–P4), scalars
    canonical integers below ℓ."""

    commitments: tuple[bytes, ...]
    chain: tuple[bytes, ...]
    challenge: int
    s1: int
    s2: int
    s3: int
    s4: int
    chain_responses: tuple[int, ...]
    responses: tuple[int, ...]

    @staticmethod
    def wire_bytes(size: int) -> int:
        """The length of a proof for ``size`` ciphertexts."""
        return 4 * 32 * size + 5 * 32

    @property
    def size(self) -> int:
        """``N``, the number of ciphertexts shuffled."""
        return len(self.commitments)

    def to_bytes(self) -> bytes:
        """The wire form (see the class docstring)."""
        scalars = (self.challenge, self.s1, self.s2, self.s3, self.s4,
                   *self.chain_responses, *self.responses)
        encoded = (s.to_bytes(SCALAR_BYTES, "little") for s in scalars)
        return b"".join((*self.commitments, *self.chain, *encoded))

    @classmethod
    def from_bytes(cls, data: bytes, size: int) -> ShuffleProof:
        """Parse a received proof for ``size`` ciphertexts; raises :class:`BadShuffleProof`
        naming the first part that is wrong."""
        if not isinstance(data, bytes) or len(data) != cls.wire_bytes(size):
            raise BadShuffleProof(f"a proof of shuffle of {size} cards is {cls.wire_bytes(size)} bytes")
        points = [data[i:i + POINT_BYTES] for i in range(0, 2 * size * POINT_BYTES, POINT_BYTES)]
        for index, point in enumerate(points):
            try:
                Point.from_bytes(point)
            except ProtocolError:
                part = "permutation commitment" if index < size else "commitment chain"
                raise BadShuffleProof(f"the proof's {part} {index % size} is not a valid point") from None
        start = 2 * size * POINT_BYTES
        scalars = [int.from_bytes(data[i:i + SCALAR_BYTES], "little")
                   for i in range(start, len(data), SCALAR_BYTES)]
        for index, value in enumerate(scalars):
            if value >= _L:
                raise BadShuffleProof(f"the proof's scalar {index} is not reduced modulo the group order")
        return cls(tuple(points[:size]), tuple(points[size:]), scalars[0], scalars[1], scalars[2],
                   scalars[3], scalars[4], tuple(scalars[5:5 + size]), tuple(scalars[5 + size:]))


@dataclass(frozen=True, slots=True)
class _Statement:
    """What a proof is about, as encodings, with the digest every challenge starts from."""

    context: bytes
    joint: bytes
    before: tuple[tuple[bytes, bytes], ...]
    after: tuple[tuple[bytes, bytes], ...]
    gens: tuple[bytes, ...]
    digest: bytes

    @classmethod
    def of(cls, before: Sequence[Ciphertext], after: Sequence[Ciphertext], joint: Point,
           context: bytes) -> _Statement:
        size = len(before)
        pairs_before = tuple((c.a.encoding, c.b.encoding) for c in before)
        pairs_after = tuple((c.a.encoding, c.b.encoding) for c in after)
        gens = generators(context, size)
        digest = hashlib.sha512(frame(
            PROOF_DOMAIN, context, _G, joint.encoding, b"".join(gens), _num(size),
            b"".join(a + b for a, b in pairs_before), b"".join(a + b for a, b in pairs_after),
        )).digest()
        return cls(context, joint.encoding, pairs_before, pairs_after, gens, digest)

    def permutation_challenges(self, commitments: Sequence[bytes]) -> tuple[bytes, list[int]]:
        """The digest of the statement and the permutation commitment, and ``u_0 … u_{N−1}``."""
        joined = b"".join(commitments)
        bound = hashlib.sha512(frame(PERMUTATION_CHALLENGE_DOMAIN, self.digest, joined)).digest()
        return bound, [_scalar(PERMUTATION_CHALLENGE_DOMAIN, bound, _num(j)) for j in range(len(commitments))]

    def challenge(self, bound: bytes, chain: Sequence[bytes], t1: bytes, t2: bytes, t3: bytes,
                  t4a: bytes, t4b: bytes, t_hat: Sequence[bytes]) -> int:
        """The Fiat–Shamir challenge over everything: statement, commitments and every ``t``."""
        return _scalar(CHALLENGE_DOMAIN, bound, b"".join(chain), t1, t2, t3, t4a, t4b, b"".join(t_hat))


def statement_digest(before: Sequence[Ciphertext], after: Sequence[Ciphertext], joint: Point,
                     context: bytes) -> bytes:
    """The digest every challenge of a proof starts from (PROTOCOL §2.13): SHA-512 of the framed
    domain, context, ``G``, ``H``, the generators, ``N`` and both decks."""
    return _Statement.of(before, after, joint, context).digest


def prove_shuffle(before: Sequence[Ciphertext], after: Sequence[Ciphertext], permutation: Sequence[int],
                  rerandomisers: Sequence[int], joint: Point, context: bytes, seed: bytes) -> ShuffleProof:
    """Prove that ``after[i] = before[permutation[i]] + (r_i·G, r_i·H)`` with ``r_i =
    rerandomisers[i]`` (integers mod ℓ), without revealing either.

    The prover's random scalars are derived, not drawn: keyed BLAKE2b under the secret shuffle
    ``seed`` (32 random bytes, which also fix the permutation and the re-randomisers) of the
    statement's digest and a counter. Two different statements never share them (that would
    reveal the witness), one statement always gets the same proof, and a restarted peer
    rebuilds its shuffle entry byte for byte."""
    size = len(before)
    if not (len(after) == len(permutation) == len(rerandomisers) == size > 0):
        raise ValueError("a proof of shuffle needs decks, a permutation and scalars of one size")
    statement = _Statement.of(before, after, joint, context)
    gens, h = statement.gens[:size], statement.gens[size]
    counter = iter(range(4 * size + 4))

    def fresh() -> int:
        block = hashlib.blake2b(frame(NONCE_DOMAIN, statement.digest, _num(next(counter))),
                                key=seed, digest_size=64).digest()
        return int.from_bytes(block, "little") % _L

    # The permutation commitment: c_π(i) = r_π(i)·G + h_i. (Built so that a list that is not a
    # permutation still gives a whole proof, one that does not verify: the tests try that.)
    r = [fresh() for _ in range(size)]
    commitments = [_base(rj) for rj in r]
    for i, j in enumerate(permutation):
        commitments[j] = bytes(_add(commitments[j], gens[i]))
    bound, u = statement.permutation_challenges(commitments)
    u_tilde = [u[j] for j in permutation]
    # The commitment chain: ĉ_i = r̂_i·G + ũ_i·ĉ_{i−1}, from ĉ_{−1} = h.
    r_hat = [fresh() for _ in range(size)]
    chain = []
    previous = h
    for i in range(size):
        previous = bytes(_add(_base(r_hat[i]), _mul(u_tilde[i], previous)))
        chain.append(previous)
    w1, w2, w3, w4 = fresh(), fresh(), fresh(), fresh()
    w_hat = [fresh() for _ in range(size)]
    w_prime = [fresh() for _ in range(size)]
    t1 = _base(w1)
    t2 = _base(w2)
    t3 = bytes(_add(_base(w3), _combination(w_prime, gens)))
    t4a = bytes(_sub(_combination(w_prime, [a for a, _ in statement.after]), _base(w4)))
    t4b = bytes(_sub(_combination(w_prime, [b for _, b in statement.after]), _mul(w4, joint.encoding)))
    t_hat = [bytes(_add(_base(w_hat[i]), _mul(w_prime[i], chain[i - 1] if i else h))) for i in range(size)]
    c = statement.challenge(bound, chain, t1, t2, t3, t4a, t4b, t_hat)
    # v_i = ũ_{i+1} · … · ũ_{N−1}: what r̂_i is multiplied by at the end of the chain.
    v = [1] * size
    for i in range(size - 2, -1, -1):
        v[i] = v[i + 1] * u_tilde[i + 1] % _L
    s1 = (w1 + c * sum(r)) % _L
    s2 = (w2 + c * sum(rh * vi for rh, vi in zip(r_hat, v, strict=True))) % _L
    s3 = (w3 + c * sum(rj * uj for rj, uj in zip(r, u, strict=True))) % _L
    s4 = (w4 + c * sum(ri * ui for ri, ui in zip(rerandomisers, u_tilde, strict=True))) % _L
    s_hat = tuple((w + c * rh) % _L for w, rh in zip(w_hat, r_hat, strict=True))
    s_prime = tuple((w + c * ut) % _L for w, ut in zip(w_prime, u_tilde, strict=True))
    return ShuffleProof(tuple(commitments), tuple(chain), c, s1, s2, s3, s4, s_hat, s_prime)


def record_made(before: Sequence[Ciphertext], after: Sequence[Ciphertext], joint: Point, context: bytes,
                proof: ShuffleProof) -> None:
    """Keep the verdict "true" for a proof this process has just made of a shuffle it made
    itself from its seed (``shuffle.shuffle_and_prove``): it verifies by completeness, so neither
    this peer nor another in its process checks it again. Never for a proof of anything else
    (``prove_shuffle`` makes one of whatever it is given)."""
    points = (*proof.commitments, *proof.chain, *(p for c in after for p in (c.a.encoding, c.b.encoding)))
    if _ZERO not in points:  # what the verifier refuses out of hand: a one-in-2²⁵² accident
        statement = _Statement.of(before, after, joint, context)
        VERDICTS.record(VERDICTS.key(statement.digest, proof.to_bytes()), True)


def _check(statement: _Statement, proof: ShuffleProof) -> bool:
    """CheckShuffleProof: recompute every ``t`` from the responses and compare the challenge."""
    size = proof.size
    gens, h = statement.gens[:size], statement.gens[size]
    c = proof.challenge
    minus_c = -c % _L
    bound, u = statement.permutation_challenges(proof.commitments)
    # t1 = s1·G − c·(Σ c_j − Σ h_i)
    c_bar = _sub(_sum(proof.commitments), _generator_sum(statement.context, size))
    t1 = bytes(_add(_base(proof.s1), _mul(minus_c, c_bar)))
    # t2 = s2·G − c·(ĉ_{N−1} − (Π u_j)·h)
    u_product = 1
    for uj in u:
        u_product = u_product * uj % _L
    c_hat = _sub(proof.chain[-1], _mul(u_product, h))
    t2 = bytes(_add(_base(proof.s2), _mul(minus_c, c_hat)))
    # t3 = s3·G + Σ s'_i·h_i − c·Σ u_j·c_j
    cu = [minus_c * uj % _L for uj in u]
    t3 = bytes(_add(_add(_base(proof.s3), _combination(proof.responses, gens)),
                    _combination(cu, proof.commitments)))
    # t4 = Σ s'_i·ẽ_i − s4·(G, H) − c·Σ u_j·e_j
    minus_s4 = -proof.s4 % _L
    t4a = bytes(_add(_add(_combination(proof.responses, [a for a, _ in statement.after]), _base(minus_s4)),
                     _combination(cu, [a for a, _ in statement.before])))
    t4b = bytes(_add(_add(_combination(proof.responses, [b for _, b in statement.after]),
                          _mul(minus_s4, statement.joint)),
                     _combination(cu, [b for _, b in statement.before])))
    # t̂_i = ŝ_i·G + s'_i·ĉ_{i−1} − c·ĉ_i
    t_hat = []
    previous = h
    for i in range(size):
        current = proof.chain[i]
        t_hat.append(bytes(_add(_add(_base(proof.chain_responses[i]), _mul(proof.responses[i], previous)),
                                _mul(minus_c, current))))
        previous = current
    return statement.challenge(bound, proof.chain, t1, t2, t3, t4a, t4b, t_hat) == c


VERDICTS = Verdicts(b"p2p10/verdict/shuffle-proof", 256)


def verify_shuffle_proof(before: Sequence[Ciphertext], after: Sequence[Ciphertext], joint: Point,
                         proof: ShuffleProof | bytes, context: bytes) -> bool:
    """True when ``proof`` shows that ``after`` is a permutation and re-encryption of
    ``before`` under ``joint``, for ``context``; never raises.

    ``before`` and ``after`` are parsed decks (every point checked where it was read; the
    initial deck's identity ``A`` is allowed). A verdict is kept, keyed by a hash of the
    statement and the proof, so a process that runs several peers checks each proof once."""
    size = len(before)
    if size == 0 or len(after) != size:
        return False
    try:
        statement = _Statement.of(before, after, joint, context)
        raw = proof.to_bytes() if isinstance(proof, ShuffleProof) else proof
        if not isinstance(raw, bytes):
            return False
    except (ProtocolError, ValueError, TypeError, OverflowError):
        return False

    def check() -> bool:
        try:
            return _check(statement, ShuffleProof.from_bytes(raw, size))
        except ProtocolError:
            return False

    return VERDICTS.check(VERDICTS.key(statement.digest, raw), check)
