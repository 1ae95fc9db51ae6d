"""The events a game is folded from. Frozen, typed, and nothing but data.

Seat events (``DrawStock`` .. ``Discard``) are moves of the seat whose turn it is. The others
come from the dealing layer: ``Deal`` starts a hand and opens the first discard publicly,
``Reshuffle`` turns the discard pile (less its top card) into a new draw pile, ``Reveal``
tells this viewer which card lies at some deck positions, and ``EndHand`` scores a hand
whose cards have all been revealed.

Cards are addressed by *slot*: a position in the hand's shuffled deck (0..107, and new
slots after each reshuffle). A move that shows a card publicly carries the card identity
too, and the engine checks it against what it already knows of that slot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class Deal:
    """Start the next hand; ``first_up`` is the card turned up to start the discard pile."""

    first_up: int


@dataclass(frozen=True, slots=True)
class Reveal:
    """This viewer learns the cards at some slots: ``((slot, card), ...)``."""

    cards: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class Reshuffle:
    """The draw pile is empty: the discard pile less its top card becomes a new draw pile."""


@dataclass(frozen=True, slots=True)
class DrawStock:
    """Draw the top card of the draw pile."""

    seat: int


@dataclass(frozen=True, slots=True)
class TakeDiscard:
    """Take the top card of the discard pile."""

    seat: int


@dataclass(frozen=True, slots=True)
class MeldSpec:
    """One meld of a lay-down. A run's cards are in ascending order. ``label`` (the set's
    number, the run's lowest value or the group's colour index) is needed only when no
    numbered card in the meld settles it."""

    slots: tuple[int, ...]
    cards: tuple[int, ...]
    label: int | None = None


@dataclass(frozen=True, slots=True)
class LayDown:
    """Lay down ``phase`` as ``melds``, in the phase's order (the set before the run)."""

    seat: int
    phase: int
    melds: tuple[MeldSpec, ...]


@dataclass(frozen=True, slots=True)
class Hit:
    """Add one card to a meld on the table; ``end`` says which end of a run."""

    seat: int
    slot: int
    card: int
    meld: int
    end: Literal["low", "high"] | None = None


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard a card, ending the turn; ``target`` is the seat a Skip is thrown at."""

    seat: int
    slot: int
    card: int
    target: int | None = None


@dataclass(frozen=True, slots=True)
class SitOut:
    """Before a deal: ``seat`` is not dealt in the next hand (it went away mid-hand, the hand
    was voided, and the others replay it without it)."""

    seat: int


@dataclass(frozen=True, slots=True)
class EndHand:
    """Score the hand that has ended (every card left in a hand must be revealed)."""


Event = Deal | Reveal | Reshuffle | DrawStock | TakeDiscard | LayDown | Hit | Discard | EndHand | SitOut
SeatEvent = DrawStock | TakeDiscard | LayDown | Hit | Discard
