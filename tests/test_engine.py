"""Engine behaviour that scenario files do not show well: immutability, typed errors,
partial-information viewers."""

from __future__ import annotations

import random

import pytest

from p2p10.cards import parse_hand
from p2p10.engine import GameState, fold
from p2p10.errors import BadRules, IllegalMove
from p2p10.events import Deal, Discard, DrawStock, LayDown, MeldSpec, Reveal
from p2p10.game_fields import GAME_FIELDS
from p2p10.rules import RuleSet
from p2p10.simulate import deal_events, greedy_player, play_game


def dealt(players: int = 2, seed: int = 1) -> GameState:
    state = GameState(players)
    for event in deal_events(state, random.Random(seed)):
        state = state.apply(event)
    return state


def test_apply_never_changes_the_state_it_was_given() -> None:
    state = dealt()
    seat = state.turn
    after = state.apply(DrawStock(seat))
    assert state.stage == "draw" and after.stage == "play"
    assert len(after.hands[seat]) == len(state.hands[seat]) + 1


def test_a_copy_carries_every_slot() -> None:
    # GameState._copy names each slot in turn (for speed): one left out would be missing here.
    state = dealt(3)
    state = state.apply(DrawStock(state.turn))
    copy = state._copy()
    assert copy is not state
    for name in GAME_FIELDS:
        assert getattr(copy, name) is getattr(state, name), name


def test_a_reveal_leaves_the_state_before_it_alone_even_when_refused() -> None:
    state = GameState(2)
    deck = list(range(108))
    random.Random(5).shuffle(deck)
    before = state.apply(Deal(deck[20]))
    known, where = dict(before.known), dict(before.where)
    after = before.apply(Reveal(tuple(enumerate(deck))))
    assert len(after.known) == len(after.where) == 108 and before.known == known
    clashing = Reveal(((0, deck[0]), (1, deck[0])))  # one card at two slots: refused at slot 1
    with pytest.raises(IllegalMove, match="already at slot 0"):
        before.apply(clashing)
    assert before.known == known and before.where == where


def test_the_error_names_the_gap_in_a_run() -> None:
    state = GameState.start(2, made=[[1], [1]], hands_played=2)
    # Seat 1 plays first; give it R4 R5 R7 and a set of 3.
    hand = parse_hand("R4 R5 R7 B9 G9 Y9 R1 R2 R3 R11")
    other = parse_hand("B1 B2 B3 B4 B5 B6 B7 B8 B10 B11")
    deck = [0] * 108
    for j in range(10):
        deck[2 * j] = hand[j]
        deck[2 * j + 1] = other[j]
    rest = iter(sorted(set(range(108)) - set(hand) - set(other)))
    for i in range(20, 108):
        deck[i] = next(rest)
    state = state.apply(Deal(deck[20])).apply(Reveal(tuple(enumerate(deck))))
    assert state.turn == 1
    state = state.apply(DrawStock(1))
    slots = {state.known[s]: s for s in state.hands[1]}
    run = parse_hand("R4 R5 R7")
    sets = parse_hand("B9 G9 Y9")
    move = LayDown(1, 2, (MeldSpec(tuple(slots[c] for c in sets), sets),
                          MeldSpec(tuple(slots[c] for c in run), run)))
    with pytest.raises(IllegalMove) as err:
        state.apply(move)
    assert str(err.value) == "Phase 2 needs a run of 4; R4 R5 R7 has a gap at 6"
    assert err.value.seat == 1


def test_a_move_out_of_turn_is_blamed_on_its_seat() -> None:
    state = dealt(3)
    wrong = (state.turn + 1) % 3
    with pytest.raises(IllegalMove, match="turn") as err:
        state.apply(DrawStock(wrong))
    assert err.value.seat == wrong


def test_a_card_claimed_at_the_wrong_slot_is_refused() -> None:
    state = dealt()
    seat = state.turn
    state = state.apply(DrawStock(seat))
    mine, theirs = state.hands[seat][0], state.hands[1 - seat][0]
    with pytest.raises(IllegalMove, match="holds"):
        state.apply(Discard(seat, mine, state.known[theirs]))


def test_a_spectator_folds_the_same_game_from_public_events_only() -> None:
    """Drop every Reveal except the end-of-hand ones: the spectator's fold reaches the same
    scores, phases and winner as the full-information game."""
    record = play_game([greedy_player] * 3, RuleSet(goal=2), random.Random(3))
    spectator = GameState(3, RuleSet(goal=2))
    for index, event in enumerate(record.events):
        if isinstance(event, Reveal):
            continue
        if spectator.awaiting().kind == "reveal":
            # The end-of-hand reveal of the cards left in hands.
            full = fold(record.events[:index], 3, RuleSet(goal=2))
            spectator = spectator.apply(Reveal(tuple(
                (s, full.known[s]) for s in spectator.unrevealed_in_hands())))
        spectator = spectator.apply(event)
    assert spectator.winner == record.state.winner
    assert spectator.totals == record.state.totals
    assert spectator.made == record.state.made


@pytest.mark.parametrize("options,message", [
    (["skip=sideways"], "skip=next"),
    (["bogus"], "unknown rule option"),
    (["goal=0"], "at least 1"),
    (["goal=6", "phases=even"], "more phases"),
    (["hands=10", "goal=3"], "cannot both"),
    (["hands=10", "order=any"], "no meaning"),
])
def test_bad_rule_options_are_refused_by_name(options: list[str], message: str) -> None:
    with pytest.raises(BadRules, match=message):
        RuleSet.parse(options)


def test_rule_options_round_trip() -> None:
    options = ["skip=next", "skip_stacking", "natural=phase", "hit=own", "phases=odd",
               "order=any", "goal=3"]
    rules = RuleSet.parse(options)
    assert RuleSet.parse(rules.options()) == rules
    assert RuleSet.parse({"skip": "next", "skip_stacking": True}) == RuleSet(
        skip_next=True, skip_stacking=True)


def test_the_fields_named_are_every_slot_of_a_game_state() -> None:
    # GAME_FIELDS is what copies, snapshots and the checkpoint's checks go through: it must be
    # every slot of the state, wherever in its bases the slot is declared.
    state = dealt(3)
    slots = {s for cls in type(state).__mro__ for s in getattr(cls, "__slots__", ())}
    assert slots == set(GAME_FIELDS) and len(GAME_FIELDS) == len(slots) > 20
    assert all(hasattr(state, name) for name in GAME_FIELDS)
