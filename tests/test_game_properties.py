"""Property tests over random complete games (hypothesis): 2-6 players, random rule sets,
random legal moves. After every event: the 108 cards are conserved, every meld on the table
is valid, skips and stages are sane; at every hand's end the scores agree with the hands;
at the end, replaying the events gives the live state."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p10.cards import DECK_SIZE, points
from p2p10.engine import GameState, fold
from p2p10.errors import IllegalMove
from p2p10.events import Discard, DrawStock, EndHand, Event, TakeDiscard
from p2p10.game_fields import GAME_FIELDS
from p2p10.melds import check_meld
from p2p10.moves import legal_moves
from p2p10.rules import PHASE_LISTS, RuleSet
from p2p10.simulate import greedy_player, play_game, random_player

rule_sets = st.builds(
    RuleSet,
    skip_next=st.booleans(),
    skip_stacking=st.booleans(),
    natural_per_phase=st.booleans(),
    hit_own=st.booleans(),
    phase_list=st.sampled_from(list(PHASE_LISTS.values())),
    any_order=st.booleans(),
).flatmap(lambda r: st.one_of(
    st.just(r),
    st.integers(1, len(r.phase_list)).map(lambda g: RuleSet(**{**_fields(r), "goal": g})),
    st.integers(1, 4).map(lambda h: RuleSet(**{**_fields(r), "hands": h, "any_order": False})),
))


def _fields(rules: RuleSet) -> dict[str, object]:
    return {name: getattr(rules, name) for name in RuleSet.__slots__}


def mostly_random(state: GameState, seat: int, rng: random.Random) -> Event:
    """Random legal moves, with a lean towards laying down and hitting so games end sooner
    (a purely random player can take thousands of turns)."""
    moves = legal_moves(state, seat)
    progress = [m for m in moves if not isinstance(m, Discard | DrawStock | TakeDiscard)]
    if progress and rng.random() < 0.7:
        return rng.choice(progress)
    return rng.choice(moves)


def check_invariants(state: GameState) -> None:
    """What must hold after every event of a full-information game."""
    if state.stage in ("deal", "over") or len(state.known) < DECK_SIZE:
        return  # between hands, or between a deal (or reshuffle) and its reveal
    live = [s for seat in state.seats_in_hand for s in state.hands[seat]]
    live += list(state.stock) + list(state.discard) + [s for m in state.melds for s in m.slots]
    assert len(live) == len(set(live)) == DECK_SIZE, "a slot is lost or duplicated"
    assert Counter(state.known[s] for s in live) == Counter(range(DECK_SIZE)), "cards not conserved"
    for meld in state.melds:
        check_meld(meld.kind, meld.cards, 1, meld.label, need_natural=False)
        assert meld.kind != "run" or meld.high <= 12
    for seat in range(state.players):
        pending = state.pending_skips[seat]
        assert pending >= 0 and (state.rules.skip_stacking or pending <= 1)
        if seat not in state.seats_in_hand:
            assert not state.hands[seat]
    if state.stage in ("draw", "play"):
        assert state.turn in state.seats_in_hand


def check_hand_end(before: GameState, after: GameState) -> None:
    """EndHand scored every hand by the cards in it and advanced the right phases."""
    row = after.sheet[-1]
    for seat in before.seats_in_hand:
        cards = [before.known[s] for s in before.hands[seat]]
        assert row.points[seat] == sum(map(points, cards))
        assert row.made[seat] == (before.down[seat] is not None)
        if before.down[seat] is not None and before.tie is None:
            assert after.made[seat][-1] == before.down[seat]
    assert row.points[row.went_out] == 0
    regular = [r for r in after.sheet if not r.tie]
    assert after.totals == tuple(sum(r.points[s] or 0 for r in regular)
                                 for s in range(after.players))


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 6), rules=rule_sets)
def test_random_games_keep_every_invariant(seed: int, players: int, rules: RuleSet) -> None:
    rng = random.Random(seed)
    previous: list[GameState] = []

    def observe(state: GameState, event: Event) -> None:
        check_invariants(state)
        if isinstance(event, EndHand):
            check_hand_end(previous[-1], state)
        previous[:] = [state]

    first = GameState(players, rules)
    previous.append(first)
    record = play_game([mostly_random] * players, rules, rng, on_event=observe)
    final = record.state
    assert final.is_over() and final.winner is not None
    # The winner is the lowest total among those who finished (or won the tie replay).
    if not any(r.tie for r in final.sheet):
        if rules.hands:
            finishers = range(players)
        else:
            finishers = [s for s in range(players) if len(final.made[s]) >= rules.phases_to_win]
        assert final.totals[final.winner] == min(final.totals[s] for s in finishers)
    replayed = fold(record.events, players, rules)
    for name in GAME_FIELDS:
        assert getattr(replayed, name) == getattr(final, name), name


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 6), rules=rule_sets,
       probes=st.integers(1, 30))
def test_illegal_events_are_refused_and_change_nothing(
        seed: int, players: int, rules: RuleSet, probes: int) -> None:
    """At random points of a game, moves by the wrong seat, draws at the wrong time and
    discards of cards not held are refused with IllegalMove and leave the state unchanged."""
    rng = random.Random(seed)
    checked = 0

    def probe(state: GameState, event: Event) -> None:
        nonlocal checked
        if (state.stage not in ("draw", "play") or len(state.known) < DECK_SIZE
                or checked >= probes or rng.random() > 0.2):
            return
        snapshot = {name: getattr(state, name) for name in GAME_FIELDS}
        wrong = (state.turn + 1 + rng.randrange(players - 1)) % players
        foreign = [s for seat in state.seats_in_hand if seat != state.turn
                   for s in state.hands[seat]]
        attempts: list[Event] = [DrawStock(wrong), TakeDiscard(wrong)]
        if state.stage == "play":
            attempts.append(DrawStock(state.turn))
            if foreign:
                slot = rng.choice(foreign)
                attempts.append(Discard(state.turn, slot, state.known[slot]))
        else:
            slot = rng.choice(state.hands[state.turn])
            attempts.append(Discard(state.turn, slot, state.known[slot]))
        for attempt in attempts:
            try:
                state.apply(attempt)
            except IllegalMove as err:
                assert str(err)
            else:
                raise AssertionError(f"{attempt} was allowed")
        assert snapshot == {name: getattr(state, name) for name in GAME_FIELDS}
        checked += 1

    play_game([mostly_random] * players, rules, rng, on_event=probe)


def test_pure_random_and_greedy_players_finish_games() -> None:
    for player in (random_player, greedy_player):
        record = play_game([player] * 3, RuleSet(goal=2), random.Random(7))
        assert record.state.is_over()


def test_a_long_game_reshuffles_the_discard_pile_and_keeps_every_invariant() -> None:
    from p2p10.events import Reshuffle

    seen: list[Event] = []

    def observe(state: GameState, event: Event) -> None:
        check_invariants(state)
        seen.append(event)

    play_game([mostly_random] * 2, RuleSet(), random.Random(0), on_event=observe)
    assert any(isinstance(e, Reshuffle) for e in seen)
