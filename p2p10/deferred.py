"""The checks a deferring fold (the audit's, the replay's) puts off to a hand's reveals, as plain
data (bytes, ints and strings) that any process can check: PROTOCOL §4.4.3, *deferred proofs*.

With ``every_proof`` (the audit's default) every check verifies the proof a peer verified on
arrival, and a step is then re-derived from its revealed seed as a peer does at the reveal.
Without it (a replay, ``p2p10 audit --by-reveals``) a step is settled by its revealed seed alone
(with the joint secret once every seat has revealed), a token of a seat that has revealed by
``x·A``, and only what no reveal reaches is checked through its proof: faster, but a false
proof of a right shuffle or token passes. A failure comes back as a :data:`Found`: the entry at
which a peer, checking every proof on arrival, would have found it (so that the earliest of
several is the verdict), the seat to blame, the entry it is blamed at, and the reason.

The fold makes these jobs (``TableState.deferred_jobs``) and either runs them at once
(:func:`run_all`) or, in an audit with ``--jobs``, leaves them for a pool of processes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from p2p10.crypto.elgamal import Ciphertext, Deck
from p2p10.crypto.group import Point, Scalar, mul
from p2p10.crypto.proofs import verify_equal_logs
from p2p10.crypto.shuffle import verify_shuffle
from p2p10.crypto.shuffle_proof import verify_shuffle_proof
from p2p10.errors import ProtocolViolation

Found = tuple[int, int, int, str]
"""A failed check: (the entry at which a peer finds it, the seat blamed, the entry blamed, why)."""


def bad_proof(name: str, round_no: int) -> str:
    """Why a step whose proof of shuffle fails is refused."""
    return (f"{name}'s proof of shuffle in round {round_no} does not verify: its deck is not a "
            "shuffle of the one before it")


def not_seeded(name: str, round_no: int) -> str:
    """Why a genuine shuffle that is not the one its committed seed dictates is refused."""
    return f"{name}'s shuffle in round {round_no} is not the one its revealed seed dictates"


def bad_token(slot: int) -> str:
    """Why a token that is not its maker's ``x·A`` is refused."""
    return f"the token for slot {slot} does not match its proof or key"


@dataclass(frozen=True, slots=True)
class StepJob:
    """Check the shuffle step of ``seat`` (entry ``seq``, ``name`` as players see it) in round
    ``round``: ``before`` and ``after`` are the decks' wire bytes. With its ``seed`` (revealed
    at entry ``revealed_at``) it is re-derived, using ``joint_secret`` where every seat has
    revealed; without, or where the re-derivation fails, its ``proof`` says whether it is a
    shuffle at all."""

    seat: int
    seq: int
    name: str
    round: int
    before: bytes
    after: bytes
    joint: bytes
    context: bytes
    proof: bytes
    seed: bytes | None = None
    revealed_at: int = 0
    joint_secret: bytes | None = None
    every_proof: bool = False


@dataclass(frozen=True, slots=True)
class TokenJob:
    """Check the token ``token`` of ``seat`` (entry ``seq``) for ``slot``, whose ciphertext's
    first component is ``a``: ``secret``·A where the maker's secret is revealed, else its
    ``proof`` against the hand key ``public``."""

    seat: int
    seq: int
    slot: int
    a: bytes
    token: bytes
    public: bytes
    proof: bytes
    context: bytes
    secret: bytes | None = None
    every_proof: bool = False


Job = StepJob | TokenJob


def _deck(data: bytes) -> Deck:
    # Bytes this process or its parent read through ``Ciphertext.from_bytes`` (or computed), so
    # they are not checked again.
    w = Ciphertext.WIRE_BYTES
    return tuple(Ciphertext(Point.computed(data[i:i + w // 2]), Point.computed(data[i + w // 2:i + w]))
                 for i in range(0, len(data), w))


def deck_bytes(deck: Sequence[Ciphertext]) -> bytes:
    """A deck's wire bytes, for a :class:`StepJob`."""
    return b"".join(c.to_bytes() for c in deck)


def run(job: Job) -> Found | None:
    """Run one check; None when it passes."""
    if isinstance(job, TokenJob):
        a = Point.computed(job.a)
        token = Point.computed(job.token)
        if job.every_proof or job.secret is None:  # the proof a peer checked on arrival
            right = verify_equal_logs(job.public, a, token, job.proof, job.context)
        else:  # settled by the revealed secret alone (a replay, audit --by-reveals)
            right = mul(Scalar(job.secret), a) == token
        return None if right else (job.seq, job.seat, job.seq, bad_token(job.slot))
    before, after = _deck(job.before), _deck(job.after)
    joint = Point.computed(job.joint)
    if job.every_proof:
        # As a peer: the proof on arrival (blamed there), then the seed at its reveal.
        if not verify_shuffle_proof(before, after, joint, job.proof, job.context):
            return (job.seq, job.seat, job.seq, bad_proof(job.name, job.round))
        if job.seed is None:
            return None
        secret = None if job.joint_secret is None else Scalar(job.joint_secret)
        if verify_shuffle(before, after, job.seed, joint, job.context, secret):
            return None
        return (job.revealed_at, job.seat, job.seq, not_seeded(job.name, job.round))
    if job.seed is not None:
        secret = None if job.joint_secret is None else Scalar(job.joint_secret)
        if verify_shuffle(before, after, job.seed, joint, job.context, secret):
            return None
    if not verify_shuffle_proof(before, after, joint, job.proof, job.context):
        return (job.seq, job.seat, job.seq, bad_proof(job.name, job.round))
    if job.seed is None:
        return None
    # A genuine shuffle, but not its seed's: a peer finds that at the shuffler's reveal.
    return (job.revealed_at, job.seat, job.seq, not_seeded(job.name, job.round))


def run_all(jobs: Iterable[Job]) -> list[Found]:
    """Run every check; the failures (a list that pickles, for a process pool)."""
    return [found for found in map(run, jobs) if found is not None]


def earliest(found: Iterable[Found]) -> ProtocolViolation | None:
    """The failure a peer would have found first, as a violation; None if there is none."""
    first = min(found, default=None, key=lambda f: f[0])
    return None if first is None else ProtocolViolation(first[1], first[2], first[3])
