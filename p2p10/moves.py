"""Legal moves for the seat whose turn it is, as seen by a viewer who knows that hand; and
what a player's screen asks about a hand: how near it is to a phase, the lay-downs it can make,
how a few cards are hit on a meld, whom a Skip may be for.

Lay-downs are offered as the solver's best arrangement for each phase the seat may lay
down (the full space of arrangements is huge and a player wants the best one); every hit,
discard and Skip target is listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from p2p10.cards import card_text, is_natural, is_skip, is_wild, number
from p2p10.engine import GameState
from p2p10.errors import IllegalMove
from p2p10.events import Discard, DrawStock, Hit, LayDown, MeldSpec, SeatEvent, TakeDiscard
from p2p10.measure import WILD_IDS, missing
from p2p10.melds import End, Meld, hit_ends, label_text
from p2p10.rules import RuleSet
from p2p10.solver import LayDownPlan, solve


def plan_to_event(state: GameState, seat: int, plan: LayDownPlan) -> LayDown:
    """Turn a solver plan (cards) into a lay-down event (slots and cards) for ``seat``."""
    slot_of = {state.known[s]: s for s in state.hands[seat] if s in state.known}
    melds = tuple(
        MeldSpec(tuple(slot_of[c] for c in m.cards), m.cards, m.label) for m in plan.melds
    )
    return LayDown(seat, plan.phase, melds)


def lay_down_options(state: GameState, seat: int) -> list[LayDown]:
    """The best lay-down of every phase ``seat`` may lay down now."""
    if state.stage != "play" or state.turn != seat or state.down[seat] is not None:
        return []
    cards = state.hand_cards(seat)
    out = []
    for phase in state.allowed_phases(seat):
        plan = solve(cards, phase, state.rules)
        if plan is not None:
            out.append(plan_to_event(state, seat, plan))
    return out


def hit_targets(state: GameState, seat: int) -> list[Meld]:
    """The melds ``seat`` may hit cards on: every meld, or with ``hit=own`` its own only."""
    return [m for m in state.melds if not state.rules.hit_own or m.owner == seat]


def hit_moves(state: GameState, seat: int) -> list[Hit]:
    """Every single-card hit ``seat`` can make now."""
    if state.stage != "play" or state.turn != seat or state.down[seat] is None:
        return []
    melds = hit_targets(state, seat)
    out = []
    for slot in state.hands[seat]:
        card = state.known[slot]
        for meld in melds:
            for end in hit_ends(meld, card):
                out.append(Hit(seat, slot, card, meld.id, end))
    return out


def discard_targets(state: GameState, seat: int, card: int) -> tuple[int, ...]:
    """Whom ``seat`` must choose from when it discards ``card`` now: the seats a Skip may hit;
    empty for any other card, and for a Skip that hits nobody (none may be hit, or it is the
    last card, which goes out)."""
    if not is_skip(card) or state.stage != "play" or len(state.hands[seat]) == 1:
        return ()
    return state.skip_targets(seat)


def wild_given_away(state: GameState, seat: int, slot: int) -> int | None:
    """The seat that may take the Wild at ``slot`` from the discard pile if ``seat`` discards
    it now (the next to draw); None for any other card, for a discard that ends the hand (the
    seat goes out), and for a discard the engine refuses."""
    card = state.known.get(slot)
    if card is None or not is_wild(card):
        return None
    try:
        after = state.apply(Discard(seat, slot, card))
    except IllegalMove:
        return None
    if after.stage != "draw" or after.turn == seat or not after.takeable(card):
        return None
    return after.turn


def discard_moves(state: GameState, seat: int) -> list[Discard]:
    """Every discard ``seat`` can make now, a Skip once per possible target."""
    if state.stage != "play" or state.turn != seat:
        return []
    out: list[Discard] = []
    for slot in state.hands[seat]:
        card = state.known[slot]
        targets = discard_targets(state, seat, card)
        if targets:
            out.extend(Discard(seat, slot, card, t) for t in targets)
        else:
            out.append(Discard(seat, slot, card))
    return out


def draw_moves(state: GameState, seat: int) -> list[SeatEvent]:
    """The draws open to ``seat`` now."""
    if state.stage != "draw" or state.turn != seat or state.awaiting().kind != "move":
        return []
    out: list[SeatEvent] = []
    if state.stock:
        out.append(DrawStock(seat))
    top = state.top_discard()
    if top is not None and state.takeable(top):
        out.append(TakeDiscard(seat))
    return out


def legal_moves(state: GameState, seat: int) -> list[SeatEvent]:
    """Every move ``seat`` may make now (lay-downs as the best arrangement per phase)."""
    if state.stage == "draw":
        return draw_moves(state, seat)
    moves: list[SeatEvent] = []
    moves.extend(lay_down_options(state, seat))
    moves.extend(hit_moves(state, seat))
    moves.extend(discard_moves(state, seat))
    return moves


# ------------------------------------------------------------- what a player's screen asks


@lru_cache(maxsize=512)
def phase_fit(cards: tuple[int, ...], phases: tuple[int, ...], rules: RuleSet) -> tuple[int | None, int,
                                                                                         frozenset[int]]:
    """(phase, cards short, the cards that fit it) for the phase of ``phases`` the hand is
    nearest to. The fitting cards are those of the solver's best lay-down with the missing
    cards filled by wilds that are not in the hand: exactly what the hand already has of it."""
    best: tuple[int | None, int, frozenset[int]] = (None, 99, frozenset())
    for phase in phases:
        short = missing(cards, phase, rules)
        if short >= best[1]:
            continue
        extra = tuple(w for w in WILD_IDS if w not in cards)[:short]
        if len(extra) < short:
            continue
        plan = solve(cards + extra, phase, rules)
        if plan is not None:
            best = (phase, short, frozenset(plan.cards) - frozenset(extra))
    return best


@dataclass(frozen=True, slots=True)
class HandFit:
    """How a seat's known hand stands this hand, for a screen to highlight: before the seat is
    down, the ``phase`` it is nearest to (None: none it may lay down is within reach), how many
    cards it is ``short`` and the ``slots`` that already fit it; once it is ``down``, the
    ``slots`` of the cards that fit a meld it may hit."""

    slots: frozenset[int]
    down: bool
    phase: int | None = None
    short: int = 0


def hand_fit(state: GameState, seat: int) -> HandFit | None:
    """How ``seat``'s hand stands (see :class:`HandFit`), at any time of the hand, not only on
    the seat's turn; None when the seat has no hand in play."""
    if state.stage not in ("draw", "play") or seat not in state.seats_in_hand:
        return None
    slots = [s for s in state.hands[seat] if s in state.known]
    if state.down[seat] is not None:
        melds = hit_targets(state, seat)
        return HandFit(frozenset(s for s in slots if any(hit_ends(m, state.known[s]) for m in melds)), True)
    phase, short, cards = phase_fit(tuple(state.known[s] for s in slots), state.allowed_phases(seat),
                                    state.rules)
    return HandFit(frozenset(s for s in slots if state.known[s] in cards), False, phase, short)


def lay_down_choices(state: GameState, seat: int, cards: Sequence[int]) -> list[LayDownPlan]:
    """Lay-downs of ``cards`` for the phases ``seat`` may lay down, the solver's best first
    (most cards down), then the solver's best without each of its cards in turn, so a player
    can keep a card back or choose another arrangement.

    No two are alike as a player sees them: the melds by their names ("set of 7s", "run 2-6"),
    and the cards put down (or kept) in notation. Two copies of a face, a Wild on one set or
    the other, the same melds in another order: one choice."""
    plans: list[LayDownPlan] = []
    seen: set[tuple[object, ...]] = set()

    def add(plan: LayDownPlan) -> None:
        key = (plan.phase, tuple(sorted(label_text(m.kind, m.label, len(m.cards)) for m in plan.melds)),
               tuple(sorted(map(card_text, plan.cards))))
        if key not in seen:
            seen.add(key)
            plans.append(plan)

    for phase in state.allowed_phases(seat):
        best = solve(cards, phase, state.rules)
        if best is None:
            continue
        add(best)
        for card in dict.fromkeys(best.cards):
            alternative = solve([c for c in cards if c != card], phase, state.rules)
            if alternative is not None:
                add(alternative)
    return sorted(plans, key=lambda p: -p.down)  # stable: the solver's best stays first


def plan_hits(state: GameState, seat: int, meld_id: int, slots: Sequence[int],
              end: End | None = None) -> list[Hit]:
    """The hits that put every card at ``slots`` onto meld ``meld_id``, in an order that works
    (a run grows one value at a time, so numbered cards go first and a wild fills the gap
    towards a card that waits), each checked by the engine. Raises :class:`IllegalMove` with
    the engine's reason when a card does not fit. ``end`` places a lone wild on a run."""
    pending = sorted(slots, key=lambda s: not is_natural(state.known[s]))
    hits: list[Hit] = []
    while pending:
        meld = state.melds[meld_id]
        slot = next((s for s in pending if hit_ends(meld, state.known[s])), pending[0])
        card = state.known[slot]
        ends = hit_ends(meld, card)
        side: End | None = ends[0] if len(ends) == 1 else None
        if len(ends) == 2:
            waiting = [number(state.known[s]) for s in pending if is_natural(state.known[s])]
            side = end or ("low" if any(n < meld.label for n in waiting) else "high")
        move = Hit(seat, slot, card, meld_id, side)
        state = state.apply(move)  # the engine's reason, when it does not fit
        hits.append(move)
        pending.remove(slot)
    return hits


def hit_fits(state: GameState, seat: int, slots: Sequence[int]) -> tuple[list[int], list[str]]:
    """The melds that every card at ``slots`` can be hit on together (their ids), and the
    engine's reason for each meld they cannot."""
    fitting: list[int] = []
    reasons: list[str] = []
    for meld in state.melds:
        try:
            plan_hits(state, seat, meld.id, slots)
            fitting.append(meld.id)
        except IllegalMove as err:
            reasons.append(str(err))
    return fitting, reasons


def open_ends(meld: Meld, card: int) -> dict[End, int]:
    """Where a lone ``card`` may go on ``meld`` when it could go at either end of a run (a
    wild): each end and the value the card takes there; empty when there is no choice."""
    if len(hit_ends(meld, card)) != 2:
        return {}
    return {"low": meld.label - 1, "high": meld.high + 1}
