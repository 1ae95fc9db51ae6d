"""Full-information games between players, for tests, benchmarks and ``p2p10 simulate``.

The driver plays the dealer's part with an ordinary seeded shuffle: every slot is revealed
to the single viewer, so this is a simulation of the rules, not of the dealing protocol.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p2p10.cards import DECK_SIZE, colour, is_natural, is_skip, is_wild, number, points
from p2p10.engine import HAND_SIZE, GameState
from p2p10.events import (
    Deal,
    DrawStock,
    EndHand,
    Event,
    Reshuffle,
    Reveal,
    SeatEvent,
    TakeDiscard,
)
from p2p10.moves import discard_moves, hit_moves, lay_down_options, legal_moves
from p2p10.rules import DEFAULT, PHASES, RuleSet
from p2p10.solver import solve

Player = Callable[[GameState, int, random.Random], SeatEvent]


class Stalled(RuntimeError):
    """A simulated game ran past its event limit (only players that never go out do this)."""


def random_player(state: GameState, seat: int, rng: random.Random) -> SeatEvent:
    """A uniformly random legal move."""
    return rng.choice(legal_moves(state, seat))


def _usefulness(card: int, hand: Sequence[int], phase: int | None) -> float:
    """How much a card helps toward ``phase`` (higher keeps it longer)."""
    if is_wild(card):
        return 100.0
    if is_skip(card) or phase is None:
        return -1.0
    kinds = {r.kind for r in PHASES[phase]}
    others = [c for c in hand if c != card and is_natural(c)]
    score = 0.0
    if "set" in kinds:
        score += 3 * sum(1 for c in others if number(c) == number(card))
    if "run" in kinds:
        near = {number(c) for c in others if 0 < abs(number(c) - number(card)) <= 3}
        score += 1.5 * len(near) - (2 if any(number(c) == number(card) for c in others) else 0)
    if "color" in kinds:
        score += sum(1 for c in others if colour(c) == colour(card))
    return score


def greedy_player(state: GameState, seat: int, rng: random.Random) -> SeatEvent:
    """A simple sensible player: takes the discard when it makes the phase, lays down the
    best arrangement, hits everything it can, throws Skips at the leader, and discards the
    least useful card (dearest first)."""
    hand = state.hand_cards(seat)
    phase = state.phase_of(seat)
    if state.stage == "draw":
        top = state.top_discard()
        takeable = top is not None and not is_skip(top)
        if takeable and state.down[seat] is None and phase is not None:
            without = solve(hand, phase, state.rules)
            with_top = solve(hand + (top,), phase, state.rules)  # type: ignore[operator]
            if with_top is not None and (without is None or with_top.down > without.down):
                return TakeDiscard(seat)
        if state.stock or not takeable:
            return DrawStock(seat)
        return TakeDiscard(seat)
    lay = lay_down_options(state, seat)
    if lay:
        return max(lay, key=lambda e: sum(len(m.slots) for m in e.melds))
    hits = hit_moves(state, seat)
    if hits:
        return hits[0]
    discards = discard_moves(state, seat)
    skips = [d for d in discards if is_skip(d.card)]
    if skips:
        # Throw Skips early, at whoever has made the most phases (then the lowest total).
        return max(skips, key=lambda d: (len(state.made[d.target]), -state.totals[d.target])
                   if d.target is not None else (-1, 0))
    return min(discards, key=lambda d: (_usefulness(d.card, hand, phase if state.down[seat] is None
                                                    else None), -points(d.card)))


PLAYERS: dict[str, Player] = {"random": random_player, "greedy": greedy_player}


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished simulated game: its events and final state."""

    events: tuple[Event, ...]
    state: GameState


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


def play_game(
    players: Sequence[Player],
    rules: RuleSet = DEFAULT,
    rng: random.Random | None = None,
    max_events: int = 200_000,
    on_event: Callable[[GameState, Event], None] | None = None,
) -> GameRecord:
    """Play one complete game, full information, and return its events and final state."""
    rng = rng or random.Random()
    state = GameState(len(players), rules)
    events: list[Event] = []
    while True:
        waiting = state.awaiting()
        batch: list[Event]
        if waiting.kind == "over":
            return GameRecord(tuple(events), state)
        if waiting.kind == "deal":
            batch = deal_events(state, rng)
        elif waiting.kind == "reshuffle":
            batch = reshuffle_events(state, rng)
        elif waiting.kind == "end_hand":
            batch = [EndHand()]
        elif waiting.kind == "move":
            assert waiting.seat is not None
            batch = [players[waiting.seat](state, waiting.seat, rng)]
        else:  # pragma: no cover - a full-information viewer never waits for a reveal
            raise AssertionError(f"unexpected wait: {waiting}")
        for event in batch:
            state = state.apply(event)
            events.append(event)
            if on_event is not None:
                on_event(state, event)
        if len(events) > max_events:
            raise Stalled(f"no winner after {max_events} events")
