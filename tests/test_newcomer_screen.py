"""Issue 25, what a newcomer meets on the table screen: every meld in sight at 80x24 with six
seats, a hint whose card the cursor shows and a key that plays it, a Skip prompt numbered as
it reads, and hint reasons that agree with the solver."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p10.advice import advise
from p2p10.bots import POLICIES, WILD_IDS, Policy, missing
from p2p10.cards import NUMBERED, is_natural
from p2p10.engine import GameState
from p2p10.events import DrawStock, SeatEvent
from p2p10.rules import PHASES, RuleSet
from p2p10.simulate import play_game
from p2p10.solver import meld_partners
from tests.brute import meld_ok
from tests.test_advice import _deal

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay")


# ---------------------------------------------------------------- point 14: hint reasons


def shares_a_meld(card: int, hand: tuple[int, ...], phase: int) -> bool:
    """Whether ``card`` and some natural card of ``hand`` can stand in one meld of ``phase``
    (the wilds make up the rest), by the naive reference that shares no code with the solver."""
    for req in PHASES[phase]:
        wilds = list(WILD_IDS[:max(req.size - 2, 0)])
        if any(meld_ok(req.kind, [natural, card, *wilds], req.size, True)
               for natural in hand if is_natural(natural)):
            return True
    return False


@pytest.mark.parametrize(("rules", "players", "seed"), [
    (RuleSet(), 4, 21), (RuleSet(), 6, 22), (RuleSet.parse(["order=any"]), 3, 23),
    (RuleSet.parse(["phases=even"]), 5, 24), (RuleSet.parse(["natural=phase"]), 2, 25),
    (RuleSet(), 3, 26), (RuleSet.parse(["phases=odd"]), 4, 27),
])
def test_a_discard_said_to_fit_nothing_fits_nothing(rules: RuleSet, players: int, seed: int) -> None:
    """At every draw of seeded games (every seat, every hand), a hint that says the card on the
    discard pile fits nothing of the player's is true: no card in hand shares a meld of any
    phase the player may lay down with it; and a hint that says the card brings the player no
    closer to a phase is true by the solver's count of the cards the hand misses."""
    said: list[str] = []

    def watching(policy: Policy) -> Policy:
        def play(view: GameState, seat: int, rng: random.Random) -> SeatEvent:
            if view.stage == "draw" and view.awaiting().kind == "move":
                advice = advise(view, seat, NAMES[:players], 7)
                why = advice.reason_parts
                hand = view.hand_cards(seat)
                if why.kind == "draw_useless":
                    assert why.card is not None
                    for phase in view.allowed_phases(seat):
                        assert not shares_a_meld(why.card, hand, phase), (advice.reason, hand, phase)
                if why.kind == "draw_no_closer":
                    assert why.card is not None and why.number is not None
                    assert missing((*hand, why.card), why.number, rules) >= missing(hand, why.number, rules)
                said.append(why.kind)
            return policy(view, seat, rng)
        return play

    lineup = ["hard", "normal", "greedy", "easy", "hard", "normal"][:players]
    play_game([watching(POLICIES[name]) for name in lineup], rules, random.Random(seed))
    assert "draw_useless" in said or "draw_no_closer" in said


def test_the_issues_hand_a_discard_that_pairs_with_a_held_card_is_not_said_to_fit_nothing() -> None:
    """Ann holds Y11 with two pairs for phase 1; Bob discards B11. Taking it leaves Ann two
    cards short all the same, so the bot draws, and the hint says so, not that B11 fits
    nothing of hers (the issue's "B11 ... fits nothing of yours" while holding Y11)."""
    game = _deal(2, {"A": "R7 B7 R5 B5 Y11 R1 G3 Y4 B2 G8", "B": "Y1 Y3 G6 B9 B11 G2 B4 R12 G7 Y6"},
                 up="B10", stock="R11")
    game.do("B draw")
    game.do("B discard B11")
    advice = advise(game.state, 0, NAMES[:2], 11)
    assert advice.move == DrawStock(0)
    assert advice.reason == "draw from the pile: taking B11 brings you no closer to phase 1"


@given(st.lists(st.integers(0, NUMBERED - 1), min_size=1, max_size=11, unique=True),
       st.integers(0, NUMBERED - 1), st.sampled_from(sorted(PHASES)))
def test_the_solvers_meld_partners_agree_with_the_naive_reference(hand: list[int], card: int,
                                                                  phase: int) -> None:
    """meld_partners (what the hint asks) finds a partner exactly when the naive reference
    does."""
    hand = [c for c in hand if c != card]
    assert bool(meld_partners(card, hand, phase)) == shares_a_meld(card, tuple(hand), phase)
