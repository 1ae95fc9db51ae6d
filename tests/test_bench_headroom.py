"""The ceiling benchmark's cheats see what they are said to see (benchmarks/bench_headroom.py).

Its figures bound what a fair ``hard`` could gain by guessing better; that bound is only as good
as the cheats. These tests play seeded games and check every decision a cheat made against the
hidden cards it was handed: ``peek`` against the card the draw pile then gave, ``feeder`` and
``seer`` against what the next player then did.
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from types import ModuleType

import pytest

from p2p10.bots import POLICIES
from p2p10.cards import is_skip, is_wild
from p2p10.engine import GameState
from p2p10.events import Discard, DrawStock, Event, SeatEvent, TakeDiscard
from p2p10.measure import missing
from p2p10.rules import RuleSet
from p2p10.simulate import play_game

ROOT = Path(__file__).parent.parent


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """benchmarks/bench_headroom.py as a module (it imports bench_ladder beside it, as a script
    run from that folder does)."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location("bench_headroom", ROOT / "benchmarks" / "bench_headroom.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _peek_game(bench: ModuleType, game: int) -> int:
    """One seeded game with ``peek`` at seat ``game % 4``: every draw where the peek mattered
    is checked against the card the draw pile then gave; how many of them the two cards left
    the hand unalike."""
    peek = bench.Peek()
    seat = game % 4
    lineup = [POLICIES["normal"]] * 4
    lineup[seat] = peek
    before: list[GameState] = []
    checked = 0

    def watch(state: GameState, event: Event) -> None:
        nonlocal checked
        if before and isinstance(event, DrawStock | TakeDiscard) and event.seat == seat:
            was = before[-1]
            top = was.top_discard()
            phase = was.phase_of(seat)
            if (was.down[seat] is None and was.stock and top is not None and not is_skip(top)
                    and not is_wild(top) and phase is not None):
                hand = was.hand_cards(seat)
                taken = bench.with_card(hand, top, phase, was.rules)
                drawn = bench.with_card(hand, was.known[was.stock[-1]], phase, was.rules)
                checked += taken != drawn
                assert isinstance(event, TakeDiscard) == (taken < drawn), (game, event)
                if isinstance(event, DrawStock):
                    # The card it peeked at is the card it got.
                    got = set(state.hands[seat]) - set(was.hands[seat])
                    assert [state.known[s] for s in got] == [was.known[was.stock[-1]]]
        before.append(state)
        peek.watch(state, event)

    play_game(lineup, RuleSet(), random.Random(41 + game), on_event=watch)
    return checked


def test_peek_draws_from_wherever_the_better_card_lay(bench: ModuleType) -> None:
    # Decisions where the peek mattered, each checked.
    assert sum(_peek_game(bench, game) for game in range(3)) > 10


@pytest.mark.parametrize("cheat", ["Seer", "Feeder"])
def test_seer_and_feeder_know_which_discard_the_next_player_takes(bench: ModuleType, cheat: str) -> None:
    # A normal bot that is not down takes the top discard exactly when it brings its phase
    # nearer (or is a wild): what the cheat said of each of its discards must come true.
    said: dict[int, bool] = {}
    checked = 0
    bot = getattr(bench, cheat)()
    players = 3
    lineup = [POLICIES["normal"]] * players
    lineup[0] = bot
    history: list[GameState] = []

    def watch(state: GameState, event: Event) -> None:
        nonlocal checked
        if isinstance(event, Discard) and event.seat == 0 and not is_skip(event.card):
            following = 1
            assert bot.full is not None
            feeds = bot.feeds(following, event.card)
            if feeds is not None and state.stock and state.stage == "draw" and state.down[following] is None:
                said[len(history)] = feeds
        elif (isinstance(event, DrawStock | TakeDiscard) and event.seat == 1
              and said.get(len(history) - 1) is not None):
            checked += 1
            assert isinstance(event, TakeDiscard) == said[len(history) - 1], len(history)
        history.append(state)
        bot.watch(state, event)

    for game in range(2):
        said.clear()
        history.clear()
        play_game(lineup, RuleSet(), random.Random(90 + game), on_event=watch)
    assert checked > 20


def test_feeder_plays_as_hard_but_for_its_discards(bench: ModuleType) -> None:
    # Only its feed rule knows a hidden card: every other decision (draws, lay-downs, hits,
    # Skips) is hard's own, in the same position.
    feeder, hard = bench.Feeder(), bench.Watching()  # Watching never reads what it is handed
    compared = 0

    def seat0(view: GameState, seat: int, rng: random.Random) -> SeatEvent:
        nonlocal compared
        move = feeder(view, seat, random.Random(0))
        if not (isinstance(move, Discard) and not is_skip(move.card)):
            assert move == hard(view, seat, random.Random(0))
            compared += 1
        return move

    for game in range(2):
        play_game([seat0, POLICIES["normal"], POLICIES["normal"]], RuleSet(), random.Random(60 + game),
                  on_event=feeder.watch)
    assert compared > 100


def test_seer_skips_whoever_is_nearest_going_out(bench: ModuleType) -> None:
    seer = bench.Seer()
    lineup = [seer] + [POLICIES["normal"]] * 3
    checked = 0
    last: list[GameState] = []

    def watch(state: GameState, event: Event) -> None:
        nonlocal checked
        if (isinstance(event, Discard) and event.seat == 0 and is_skip(event.card)
                and event.target is not None):
            was = last[-1]

            def nearness(seat: int) -> tuple[int, int]:
                if was.down[seat] is not None:
                    return (0, len(was.hands[seat]))
                phase = was.phase_of(seat)
                assert phase is not None
                return (1, missing([was.known[s] for s in was.hands[seat]], phase, was.rules))

            others = list(was.skip_targets(0))
            if event.target in others:
                checked += 1
                assert nearness(event.target) == min(nearness(s) for s in others)
        last.append(state)
        seer.watch(state, event)

    for game in range(4):
        play_game(lineup, RuleSet(), random.Random(7 + game), on_event=watch)
    assert checked > 3
