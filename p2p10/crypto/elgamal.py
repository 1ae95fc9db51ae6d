"""ElGamal encryption of cards under the joint key ``H = Σ P_i`` (Barnett-Smart style).

A ciphertext is ``(A, B) = (r·G, M_c + r·H)`` where ``r`` is the sum of every shuffler's
re-randomisation. Opening needs a token ``T_i = x_i·A`` from every player: ``M_c = B − Σ T_i``.

The initial deck is ``(0, M_c)``: ``A`` is the identity and the card is in the clear. It is the
only place the identity is a legitimate ``A``; every peer computes it itself, so it never has to
be accepted off the wire (``Ciphertext.from_bytes`` refuses the identity in either component).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from p2p10.cards import DECK_SIZE
from p2p10.crypto.group import (
    IDENTITY,
    POINT_BYTES,
    BadPoint,
    Point,
    Scalar,
    base_mul,
    card_of_point,
    card_point,
    mul,
)


@dataclass(frozen=True, slots=True)
class Ciphertext:
    """An ElGamal ciphertext ``(A, B)``; 64 bytes on the wire as ``A ‖ B``."""

    a: Point
    b: Point

    WIRE_BYTES = 2 * POINT_BYTES

    def to_bytes(self) -> bytes:
        """``A ‖ B``."""
        return self.a.to_bytes() + self.b.to_bytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> Ciphertext:
        """Parse a received (hence already shuffled) ciphertext; raises ``BadPoint`` if malformed.

        Neither component may be the identity: a shuffled card always has ``A = r·G`` with a
        non-zero ``r``, and an identity ``B`` would be a card point minus itself.
        """
        if len(data) != cls.WIRE_BYTES:
            raise BadPoint(f"a ciphertext is exactly {cls.WIRE_BYTES} bytes")
        return cls(Point.from_bytes(data[:POINT_BYTES]), Point.from_bytes(data[POINT_BYTES:]))


Deck = tuple[Ciphertext, ...]


def encrypt_card(card: int) -> Ciphertext:
    """The trivial encryption ``(0, M_c)`` every peer starts a shuffle from."""
    return Ciphertext(IDENTITY, card_point(card))


def initial_deck(cards: Iterable[int] = range(DECK_SIZE)) -> Deck:
    """The trivial encryptions of ``cards`` in order (all 108 by default; a reshuffle passes
    the discard pile)."""
    return tuple(encrypt_card(card) for card in cards)


def joint_key(publics: Iterable[Point]) -> Point:
    """``H = Σ P_i``; each ``P_i`` must have been checked with its Schnorr proof first."""
    total = IDENTITY
    for public in publics:
        total = total + public
    if total.is_identity():
        raise BadPoint("the joint key is the identity")
    return total


def rerandomise(ciphertext: Ciphertext, r: Scalar, joint: Point,
                joint_secret: Scalar | None = None) -> Ciphertext:
    """``(A + r·G, B + r·H)``: the same card under fresh randomness. Given the joint key's
    secret ``x`` (``H = x·G``, once every seat has revealed its share), ``r·H`` is computed as
    ``(r·x)·G``: two base multiplications instead of a base and a variable-base one."""
    blind = mul(r, joint) if joint_secret is None else base_mul(r * joint_secret)
    return Ciphertext(ciphertext.a + base_mul(r), ciphertext.b + blind)


def token(secret: Scalar, a: Point) -> Point:
    """A decryption token ``x·A``; refuses an identity ``A`` (an unshuffled card needs none)."""
    if a.is_identity():
        raise BadPoint("no token is made for a ciphertext whose A is the identity")
    return mul(secret, a)


def open_point(b: Point, tokens: Sequence[Point]) -> Point:
    """``B − Σ T_i``; correct only when ``tokens`` holds one verified token per player."""
    plain = b
    for t in tokens:
        plain = plain - t
    return plain


def open_card(b: Point, tokens: Sequence[Point]) -> int:
    """The card identity hidden in ``B`` given every player's token; raises ``NotACard``."""
    return card_of_point(open_point(b, tokens))
