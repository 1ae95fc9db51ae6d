"""The meld solver against an exhaustive search, and its plans against the meld checker."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p10.cards import DECK_SIZE, cards_of_face, parse_hand
from p2p10.melds import check_meld
from p2p10.rules import PHASES, RuleSet
from p2p10.solver import can_make, solve
from tests.brute import makes, most_down

PER_PHASE = RuleSet(natural_per_phase=True)


def check_plan(hand: tuple[int, ...], phase: int, rules: RuleSet) -> int:
    """Check a solver plan is a real lay-down of ``hand``; return the cards down (0: none)."""
    plan = solve(hand, phase, rules)
    if plan is None:
        return 0
    assert plan.phase == phase
    remaining = list(hand)
    for req, meld in zip(PHASES[phase], plan.melds, strict=True):
        assert meld.kind == req.kind
        label = check_meld(meld.kind, meld.cards, req.size, meld.label,
                           need_natural=not rules.natural_per_phase)
        assert label == meld.label
        for card in meld.cards:
            remaining.remove(card)  # raises if the plan uses a card twice or not in the hand
    return plan.down


def test_makes_agrees_with_exhaustive_search_on_random_deals() -> None:
    rng = random.Random(20261129)
    disagreements = []
    made = 0
    for _ in range(250):
        hand = tuple(rng.sample(range(DECK_SIZE), 10))
        for phase in PHASES:
            expected = makes(hand, phase)
            got = check_plan(hand, phase, RuleSet()) > 0
            assert can_make(hand, phase) == got
            made += expected
            if expected != got:
                disagreements.append((hand, phase, expected))
    assert not disagreements
    assert made > 50  # the sample must contain hands that make phases, or it proves little


# Hands drawn from a narrow band of numbers plus wilds make phases far more often.
rich_hands = st.builds(
    lambda faces, wilds: tuple(sorted(set(faces)))[:11 - wilds] + tuple(range(96, 96 + wilds)),
    st.lists(st.integers(0, 47).flatmap(lambda f: st.sampled_from(cards_of_face(f))),
             min_size=6, max_size=12),
    st.integers(0, 4),
)


@settings(max_examples=150, deadline=None)
@given(hand=rich_hands, phase=st.sampled_from(sorted(PHASES)), per_phase=st.booleans())
def test_makes_agrees_with_exhaustive_search_on_rich_hands(
        hand: tuple[int, ...], phase: int, per_phase: bool) -> None:
    rules = PER_PHASE if per_phase else RuleSet()
    expected = makes(hand, phase, per_phase)
    assert (check_plan(hand, phase, rules) > 0) == expected
    assert can_make(hand, phase, rules) == expected  # the bots' fast feasibility check


@settings(max_examples=120, deadline=None)
@given(hand=st.lists(st.integers(0, DECK_SIZE - 1), min_size=4, max_size=8, unique=True),
       phase=st.sampled_from(sorted(PHASES)), per_phase=st.booleans())
def test_most_cards_down_is_exact(hand: list[int], phase: int, per_phase: bool) -> None:
    rules = PER_PHASE if per_phase else RuleSet()
    assert check_plan(tuple(hand), phase, rules) == most_down(hand, phase, per_phase)


@pytest.mark.parametrize("text,phase,down", [
    ("R7 B7 G7 R4 B5 Y6 W R2 R11 S", 2, 8),       # seed 000's worked hand: the wild as a 3
    ("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11", 6, 11),
    ("W W W W W W W W R5", 4, 9),
    ("R12 B12 W W Y12 G12 W", 9, 7),               # a set of the same number twice
    ("G1 G3 G5 G7 G9 G11 W S", 8, 7),
])
def test_known_best_lay_downs(text: str, phase: int, down: int) -> None:
    plan = solve(parse_hand(text), phase)
    assert plan is not None and plan.down == down


def test_all_wild_melds_need_natural_phase() -> None:
    hand = parse_hand("R7 W W W W W")
    assert solve(hand, 1) is None
    plan = solve(hand, 1, PER_PHASE)
    assert plan is not None and plan.down == 6
    assert sorted(len(m.cards) for m in plan.melds) == [3, 3]
