"""Legal moves for the seat whose turn it is, as seen by a viewer who knows that hand.

Lay-downs are offered as the solver's best arrangement for each phase the seat may lay
down (the full space of arrangements is huge and a player wants the best one); every hit,
discard and Skip target is listed.
"""

from __future__ import annotations

from p2p10.cards import is_skip
from p2p10.engine import GameState
from p2p10.events import Discard, DrawStock, Hit, LayDown, MeldSpec, SeatEvent, TakeDiscard
from p2p10.melds import hit_ends
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


def hit_moves(state: GameState, seat: int) -> list[Hit]:
    """Every single-card hit ``seat`` can make now."""
    if state.stage != "play" or state.turn != seat or state.down[seat] is None:
        return []
    melds = [m for m in state.melds if not state.rules.hit_own or m.owner == seat]
    out = []
    for slot in state.hands[seat]:
        card = state.known[slot]
        for meld in melds:
            for end in hit_ends(meld, card):
                out.append(Hit(seat, slot, card, meld.id, end))
    return out


def discard_moves(state: GameState, seat: int) -> list[Discard]:
    """Every discard ``seat`` can make now, a Skip once per possible target."""
    if state.stage != "play" or state.turn != seat:
        return []
    targets = state.skip_targets(seat)
    last_card = len(state.hands[seat]) == 1
    out: list[Discard] = []
    for slot in state.hands[seat]:
        card = state.known[slot]
        if is_skip(card) and targets and not last_card:
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
    if top is not None and not is_skip(top):
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
