"""The hard bot's look-ahead (p2p10/search.py): imagined deals that keep everything the seat has
seen, play-outs that end their hand, and a search that is deterministic and never sees a card."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p10.bots import POLICIES, LookAheadPolicy, StrongPolicy, use_think_budget
from p2p10.cards import DECK_SIZE, is_natural
from p2p10.engine import GameState
from p2p10.events import Deal, DrawStock, Reveal, TakeDiscard
from p2p10.rules import RuleSet
from p2p10.search import NoWorld, best_move, determinize, hand_value, hidden_slots, play_out
from p2p10.simulate import play_game

STANDARD = RuleSet()


def _states(seed: int, players: int, rules: RuleSet = STANDARD, every: int = 7) -> list[GameState]:
    """Full-information states of one game where a seat is to move, one in ``every``: some
    after a reshuffle of the discard pile, once a game runs long enough."""
    kept: list[GameState] = []
    count = [0]

    def keep(state: GameState, event: object) -> None:
        waiting = state.awaiting()
        if isinstance(event, Deal) or waiting.kind != "move":
            return  # (between a deal and its reveal the state holds no cards yet)
        count[0] += 1
        if count[0] % every == 0:
            kept.append(state)

    play_game([POLICIES["normal"]] * players, rules, random.Random(seed), on_event=keep)
    return kept


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 6), world_seed=st.integers(0, 2**32 - 1))
def test_an_imagined_deal_keeps_everything_the_seat_has_seen(seed: int, players: int,
                                                               world_seed: int) -> None:
    """Every hidden slot gets a card, every card is somewhere exactly once, the seat's own
    view of the imagined deal is its view of the real one, and a reshuffle's slots hold only
    the cards that reshuffle took (the engine's Reveal refuses anything else)."""
    for state in _states(seed, players, RuleSet.parse(["hands=2"])):
        seat = state.awaiting().seat
        assert seat is not None
        view = state.seen_by(seat)
        world = determinize(view, seat, random.Random(world_seed))
        assert not hidden_slots(world, seat)
        assert sorted(world.known.values()) == list(range(DECK_SIZE))
        again = world.seen_by(seat)
        assert again.known == view.known and again.hands == view.hands and again.stock == view.stock
        for first, end, cards in world.pools:
            assert all(world.known[s] in cards for s in world.stock if first <= s < end)


def test_reshuffled_slots_get_the_reshuffled_cards() -> None:
    """A long game reshuffles its discard pile: the hidden slots of the reshuffle then hold
    exactly the reshuffled cards the seat has not seen since, in some order."""
    found = 0
    for seed in range(40):
        for state in _states(seed, 6, every=3):
            if not state.pools:
                continue
            seat = state.awaiting().seat
            assert seat is not None
            view = state.seen_by(seat)
            world = determinize(view, seat, random.Random(seed))
            first, end, _cards = view.pools[-1]
            hidden = [s for s in hidden_slots(view, seat) if first <= s < end]
            real = sorted(state.known[s] for s in hidden)
            imagined = sorted(world.known[s] for s in hidden)
            # The same cards in the slots of that reshuffle that the seat cannot see (the draw
            # pile's and those the others drew): only where each one is, is unknown.
            assert real == imagined
            found += 1
        if found > 20:
            break
    assert found > 20


def test_a_view_that_does_not_add_up_admits_no_world() -> None:
    state = _states(1, 3)[0]
    seat = state.awaiting().seat
    assert seat is not None
    view = state.seen_by(seat)
    other = next(s for s in view.seats_in_hand if s != seat)
    # One hidden slot too many: a hand holds a slot the record never dealt.
    broken = view.with_names(view.names)  # a copy
    broken.hands = tuple(h + (h[-1],) if s == other else h for s, h in enumerate(broken.hands))
    with pytest.raises(NoWorld):
        determinize(broken, seat, random.Random(0))


def test_a_play_out_ends_the_hand_or_stops_at_its_move_limit() -> None:
    state = _states(2, 4)[0]
    policies = [POLICIES["normal"]] * 4
    end = play_out(state, policies, random.Random(3))
    assert end.stage == "reveal" and end.went_out is not None and not end.hands[end.went_out]
    cut = play_out(state, policies, random.Random(3), moves=2)
    assert cut.stage in ("draw", "play") and len(cut.history) == len(state.history) + 2


def test_the_value_of_a_hand_counts_phases_and_points_against_the_field() -> None:
    rules = RuleSet()
    deck = list(range(DECK_SIZE))
    state = GameState(2, rules).apply(Deal(deck[20])).apply(Reveal(tuple(enumerate(deck))))
    # Nobody down: the values are the other's points minus one's own, and they mirror.
    assert hand_value(state, 0) == pytest.approx(-hand_value(state, 1))
    kept = [sum(10 if (c % 24) // 2 + 1 >= 10 else 5 for c in state.hand_cards(s)) for s in (0, 1)]
    assert hand_value(state, 0) == pytest.approx((kept[1] - kept[0]) / 60)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_search_is_deterministic_and_blind(seed: int) -> None:
    """The same view and dice give the same verdict; two real deals the seat cannot tell apart
    give it the same verdict too (it reads only its view)."""
    state = next(s for s in _states(seed % 1000, 4, RuleSet.parse(["hands=2"]), every=1)
                 if s.stage == "draw" and s.stock and is_natural(s.known[s.discard[-1]]))
    seat = state.turn
    view = state.seen_by(seat)
    other_world = determinize(view, seat, random.Random(seed))
    assert other_world.seen_by(seat).known == view.known
    candidates = (DrawStock(seat), TakeDiscard(seat))
    policies = [POLICIES["normal"]] * 4
    first = best_move(view, seat, candidates, policies, random.Random(seed), 2)
    again = best_move(view, seat, candidates, policies, random.Random(seed), 2)
    blind = best_move(other_world.seen_by(seat), seat, candidates, policies, random.Random(seed), 2)
    assert first == again == blind
    assert first.worlds == 2 and len(first.means) == 2 and first.move in candidates


def test_no_budget_is_the_rules_alone() -> None:
    """With a budget of 0 the look-ahead bot plays exactly as the hard rules do."""
    lineup_a = [LookAheadPolicy(0), POLICIES["normal"], POLICIES["normal"]]
    lineup_b = [StrongPolicy("hard"), POLICIES["normal"], POLICIES["normal"]]
    rules = RuleSet.parse(["hands=3"])
    searched = play_game(lineup_a, rules, random.Random(4))
    assert searched.events == play_game(lineup_b, rules, random.Random(4)).events


def test_the_look_ahead_changes_some_close_calls() -> None:
    """With a budget, some of the hard bot's calls differ from its rules' (else the search
    would be dead weight): over a few hands, at least one draw goes the other way."""
    searching = LookAheadPolicy(8, confidence=0.0)  # its means taken at face value
    differ = 0
    for seed in range(7, 17):
        for state in _states(seed, 4, RuleSet.parse(["hands=2"]), every=2):
            if state.stage != "draw":
                continue
            seat = state.turn
            view = state.seen_by(seat)
            rules_move = StrongPolicy("hard")(view, seat, random.Random(1))
            differ += searching(view, seat, random.Random(1)) != rules_move
        if differ:
            break
    assert differ > 0


def test_the_think_budget_is_set_for_the_process() -> None:
    kept = POLICIES["hard"]
    try:
        use_think_budget(7)
        policy = POLICIES["hard"]
        assert isinstance(policy, LookAheadPolicy) and policy.worlds == 7
        with pytest.raises(ValueError, match="0 worlds or more"):
            LookAheadPolicy(-1)
    finally:
        POLICIES["hard"] = kept
