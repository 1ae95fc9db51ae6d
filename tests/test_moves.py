"""What a player's screen asks the core about a hand (:mod:`p2p10.moves`), and the engine's
refusals asked without a move (:meth:`GameState.why_not`): each on a rule scenario's deal."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from p2p10.cards import parse_hand
from p2p10.engine import GameState
from p2p10.errors import IllegalMove
from p2p10.events import Discard, DrawStock, Hit, LayDown, SeatEvent, TakeDiscard
from p2p10.game_fields import Action
from p2p10.moves import discard_targets, hand_fit, lay_down_choices, open_ends, plan_hits
from p2p10.rules import RuleSet
from tests.scenario import Game

A_DEAL = {"A": "R7 B7 G7 R4 B5 G6 Y7 R3 R8 W", "B": "Y8 Y9 Y10 Y11 Y12 G8 G9 G10 G11 B12", "up": "B11",
          "stock": "R10"}


def run_scenario_steps(deal: dict[str, str], *steps: str,
                       each: Callable[[GameState], object] = lambda state: None) -> GameState:
    """A two-seat game on phase 2 (a scenario of ``specs/rules``), ``each`` called after every step."""
    game = Game(GameState.start(2, RuleSet(), made=[[1], [1]], hands_played=1))
    game.deal(deal)
    each(game.state)
    for step in steps:
        game.do(step)
        each(game.state)
    return game.state


def test_a_multi_card_hit_is_ordered_so_each_card_fits_or_refused_whole() -> None:
    state = run_scenario_steps(A_DEAL, "A draw", "A down 2: R7 B7 G7 | R4 B5 G6 Y7")
    hand = {state.known[s]: s for s in state.hands[0]}
    r3, r8, wild, r10 = (hand[c] for c in parse_hand("R3 R8 W R10"))
    # R10 waits for a 9: the wild fills it once R8 is on; R3 goes at the low end.
    hits = plan_hits(state, 0, 1, [r10, wild, r3, r8])
    assert [h.slot for h in hits] == [r3, r8, wild, r10]
    assert hits[2].end == "high"
    with pytest.raises(IllegalMove, match="does not fit the set of 7s"):
        plan_hits(state, 0, 0, [r3, r8])
    assert open_ends(state.melds[1], state.known[wild]) == {"low": 3, "high": 8}
    assert open_ends(state.melds[0], state.known[wild]) == {}


def test_lay_down_choices_put_the_best_first_then_other_arrangements() -> None:
    state = run_scenario_steps(
        {"A": "R7 B7 G7 Y7 R4 B5 G6 W R3 G12", "B": "Y8 Y9 Y10 Y11 Y12 G8 G9 G10 G11 B12", "up": "B11",
         "stock": "R10"}, "A draw")
    plans = lay_down_choices(state, 0, state.hand_cards(0))
    assert plans[0].down == max(p.down for p in plans) == 9
    assert len(plans) > 1 and len({tuple(sorted(p.cards)) for p in plans}) == len(plans)


def test_the_hand_fit_marks_the_phase_so_far_then_the_cards_that_hit() -> None:
    state = run_scenario_steps(A_DEAL, "A draw")
    fit = hand_fit(state, 0)
    assert fit is not None and not fit.down and fit.phase == 2 and fit.short == 0
    assert {state.known[s] for s in fit.slots} >= set(parse_hand("R7 B7 G7 R4 B5 G6 Y7"))
    state = run_scenario_steps(A_DEAL, "A draw", "A down 2: R7 B7 G7 | R4 B5 G6 Y7")
    fit = hand_fit(state, 0)
    assert fit is not None and fit.down
    assert sorted(state.known[s] for s in fit.slots) == sorted(parse_hand("R3 R8 W"))
    assert hand_fit(state, 1) is not None and hand_fit(GameState(2), 0) is None


def test_a_skip_names_whom_unless_it_goes_out() -> None:
    state = run_scenario_steps({**A_DEAL, "A": "R7 B7 G7 R4 B5 G6 Y7 R3 R8 S"}, "A draw")
    skip = parse_hand("S")[0]
    assert discard_targets(state, 0, skip) == (1,)
    assert discard_targets(state, 0, parse_hand("R3")[0]) == ()


def test_why_not_gives_the_engines_own_reason_for_every_kind_of_move() -> None:
    """Each refusal asked without a move is the very text the engine gives when it refuses
    such a move, at every step of a hand, for both seats."""
    def check(state: GameState) -> None:
        for seat in range(2):
            tries: dict[Action, SeatEvent] = {
                "draw": DrawStock(seat), "take": TakeDiscard(seat),
                "lay": LayDown(seat, state.phase_of(seat) or 1, ()),
                "hit": Hit(seat, -1, 0, 0), "discard": Discard(seat, -1, 0)}
            for action, move in tries.items():
                why = state.why_not(action, seat)
                if why is None:
                    continue  # (the move itself may still be refused, for its cards)
                with pytest.raises(IllegalMove) as refused:
                    state.apply(move)
                assert str(refused.value) == why, (action, seat)

    run_scenario_steps(A_DEAL, "A draw", "A down 2: R7 B7 G7 | R4 B5 G6 Y7", "A hit R8 -> 1",
                       "A discard R3", each=check)
    state = run_scenario_steps(A_DEAL)
    assert state.why_not("hit", 0) == "draw a card first: from the draw pile or the discard pile"
    assert state.why_not("take", 1) == "it is Seat 1's turn, not Seat 2's"
    assert state.why_not("draw", 0) is None and state.why_not("draw", 5) == "there is no seat 5"
