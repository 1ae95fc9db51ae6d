"""A hand's cryptographic state as the table's fold keeps it (HandCrypto: the deck, the shuffle
rounds, the claims and the checks put off; whose turn is expected), and the contexts every hand
key, seed, shuffle, token and agreement is bound to. The fold itself is p2p10.table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from p2p10.crypto.elgamal import Ciphertext, Deck
from p2p10.crypto.group import Point, Scalar, frame
from p2p10.errors import ProtocolError
from p2p10.game_fields import HAND_SIZE

TOKEN_CONTEXT = b"p2p10/token"
KEY_CONTEXT = b"p2p10/hand-key"
SEED_CONTEXT = b"p2p10/seed"
SHUFFLE_CONTEXT = b"p2p10/shuffle"
AWAY_CONTEXT = b"p2p10/away"
RETURN_CONTEXT = b"p2p10/return"


def _num(value: int) -> bytes:
    return value.to_bytes(8, "big")


def key_context(game_id: bytes, hand: int, seat: int) -> bytes:
    """What a hand key's Schnorr proof is bound to."""
    return frame(KEY_CONTEXT, game_id, _num(hand), _num(seat))


def seed_context(game_id: bytes, hand: int, seat: int) -> bytes:
    """What a shuffle-seed commitment is bound to."""
    return frame(SEED_CONTEXT, game_id, _num(hand), _num(seat))


def shuffle_context(game_id: bytes, hand: int, round_no: int, seat: int) -> bytes:
    """What one shuffle step's permutation and re-randomisers are derived under."""
    return frame(SHUFFLE_CONTEXT, game_id, _num(hand), _num(round_no), _num(seat))


def token_context(game_id: bytes, hand: int, slot: int, seat: int) -> bytes:
    """What a token's Chaum-Pedersen proof is bound to."""
    return frame(TOKEN_CONTEXT, game_id, _num(hand), _num(slot), _num(seat))


def away_message(game_id: bytes, seq: int, prev_hash: bytes, person: int) -> bytes:
    """What a player signs, under :attr:`~p2p10.signing.Domain.AGREEMENT`, to agree that the
    table goes on without ``person``'s machine at position ``seq`` (after the entry ``prev_hash``)."""
    return frame(AWAY_CONTEXT, game_id, _num(seq), prev_hash, _num(person))


def return_message(game_id: bytes, person: int, away: int) -> bytes:
    """What ``person``'s machine signs, under :attr:`~p2p10.signing.Domain.RETURN`, to take back
    the seats the table went on without at the ``away`` entry ``away``. Bound to that entry, a
    request cannot bring the machine back after a later takeover it did not ask to undo."""
    return frame(RETURN_CONTEXT, game_id, _num(person), _num(away))


@dataclass(frozen=True, slots=True)
class Expect:
    """The next writer: ``seat`` must write an entry of ``kind``; ``what`` says it in words."""

    seat: int
    kind: str
    what: str


@dataclass(frozen=True, slots=True)
class Round:
    """One shuffle round: the deck it starts from and each seat's shuffled deck so far.

    Slot ``first + i`` of the hand is position ``i`` of the round's final deck."""

    first: int
    base: Deck
    decks: tuple[Deck, ...] = ()
    seqs: tuple[int, ...] = ()
    proofs: tuple[bytes, ...] = ()

    @property
    def final(self) -> Deck:
        """The deck after the last shuffle so far."""
        return self.decks[-1] if self.decks else self.base

    def holds(self, slot: int) -> bool:
        """True when ``slot`` is one of this round's positions."""
        return self.first <= slot < self.first + len(self.base)


@dataclass(frozen=True, slots=True)
class Claim:
    """A seat's end-of-hand reveal: its secrets and the hand and points it says it holds."""

    seq: int
    secret: Scalar
    seed: bytes
    cards: tuple[int, ...]
    points: int


@dataclass(frozen=True, slots=True)
class Deferred:
    """A check that a fold deferring proofs (the audit's, the replay's) has not made yet, of the
    entry ``seq`` by ``seat``: its shuffle step of round ``round`` (``slot`` None), or its
    ``token`` for ``slot`` with its ``proof``. It is made with the seat's revealed secrets
    where they came (the step re-derived from the seed, the token checked as ``x·A``), and
    through the proof where they never do."""

    seq: int
    seat: int
    round: int = 0
    slot: int | None = None
    token: Point | None = None
    proof: bytes = b""


@dataclass(frozen=True, slots=True)
class HandCrypto:
    """The dealing state of the hand under way (see the module docstring for ``stage``)."""

    number: int
    stage: str = "keys"
    publics: tuple[Point, ...] = ()
    commitments: tuple[bytes, ...] = ()
    joint: Point | None = None
    rounds: tuple[Round, ...] = ()
    tokens: Mapping[int, Mapping[int, Point]] = field(default_factory=dict)
    batches: int = 0
    draw: tuple[int, int] | None = None
    claims: tuple[Claim, ...] = ()
    dispute: tuple[int, int, str] | None = None
    deferred: tuple[Deferred, ...] = ()

    def ciphertext(self, slot: int) -> Ciphertext:
        """The current ciphertext at ``slot``."""
        for rnd in self.rounds:
            if rnd.holds(slot):
                return rnd.final[slot - rnd.first]
        raise ProtocolError(f"slot {slot} has not been dealt")


def sum_secrets(secrets: Sequence[Scalar]) -> Scalar:
    """``x = Σ x_s``: the joint key's secret, once every seat has revealed its share."""
    total = secrets[0]
    for secret in secrets[1:]:
        total = total + secret
    return total


def slot_owner(order: tuple[int, ...], slot: int) -> int | None:
    # Slot i of the deal goes to order[i % k]; the first discard and the stock to nobody.
    k = len(order)
    return order[slot % k] if slot < HAND_SIZE * k else None
