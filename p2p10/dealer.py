"""The dealer of a full-information game: an ordinary seeded shuffle, every slot revealed.

Used by the simulations (:mod:`p2p10.simulate`) and by the bots' look-ahead
(:mod:`p2p10.search`), which play out imagined hands; never by a peer, whose cards are dealt by
the dealing protocol.
"""

from __future__ import annotations

import random

from p2p10.cards import DECK_SIZE
from p2p10.engine import GameState
from p2p10.events import Deal, Event, Reshuffle, Reveal
from p2p10.game_fields import HAND_SIZE


def deal_events(state: GameState, rng: random.Random) -> list[Event]:
    """A shuffled deal for the next hand, every slot revealed."""
    deck = list(range(DECK_SIZE))
    rng.shuffle(deck)
    first = HAND_SIZE * len(state.next_deal_seats())
    return [Deal(deck[first]), Reveal(tuple(enumerate(deck)))]


def reshuffle_events(state: GameState, rng: random.Random) -> list[Event]:
    """The reshuffle of the discard pile, the new draw pile's slots revealed."""
    after = state.apply(Reshuffle())
    first, end, pool = after.pools[-1]
    cards = sorted(pool)
    rng.shuffle(cards)
    return [Reshuffle(), Reveal(tuple(zip(range(first, end), cards, strict=True)))]
