"""Full-information games between players, for tests, benchmarks and ``p2p10 simulate``.

The driver plays the dealer's part with an ordinary seeded shuffle: every slot is revealed
to the single viewer, so this is a simulation of the rules, not of the dealing protocol.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p2p10.bots import POLICIES, Policy, greedy_player, random_player
from p2p10.dealer import deal_events, reshuffle_events
from p2p10.engine import GameState
from p2p10.events import EndHand, Event
from p2p10.rules import DEFAULT, RuleSet

Player = Policy


class Stalled(RuntimeError):
    """A simulated game ran past its event limit (only players that never go out do this)."""


PLAYERS: dict[str, Player] = POLICIES

__all__ = ["PLAYERS", "GameRecord", "Player", "Stalled", "deal_events", "greedy_player", "play_game",
           "random_player", "reshuffle_events"]


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished simulated game: its events and final state."""

    events: tuple[Event, ...]
    state: GameState


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
            # A player is shown only what its seat may see (GameState.seen_by).
            batch = [players[waiting.seat](state.seen_by(waiting.seat), waiting.seat, rng)]
        else:  # pragma: no cover - a full-information viewer never waits for a reveal
            raise AssertionError(f"unexpected wait: {waiting}")
        for event in batch:
            state = state.apply(event)
            events.append(event)
            if on_event is not None:
                on_event(state, event)
        if len(events) > max_events:
            raise Stalled(f"no winner after {max_events} events")
