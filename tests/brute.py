"""An exhaustive, deliberately naive reference for the meld solver.

It shares no code with ``p2p10.solver``: melds are checked by a few lines of their own, and
every assignment of cards to melds is tried.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, product

from p2p10.cards import colour, is_natural, is_skip, number
from p2p10.rules import PHASES


def meld_ok(kind: str, cards: Sequence[int], size: int, need_natural: bool) -> bool:
    """Whether ``cards`` (in any order) can be arranged as the meld."""
    if len(cards) < size or any(is_skip(c) for c in cards):
        return False
    naturals = [c for c in cards if is_natural(c)]
    if need_natural and not naturals:
        return False
    if kind == "set":
        return len({number(c) for c in naturals}) <= 1
    if kind == "color":
        return len({colour(c) for c in naturals}) <= 1
    values = [number(c) for c in naturals]
    if len(set(values)) != len(values) or len(cards) > 12:
        return False
    return not values or max(values) - min(values) + 1 <= len(cards)


def makes(hand: Sequence[int], phase: int, per_phase_natural: bool = False) -> bool:
    """Whether some disjoint choice of minimum-size melds from ``hand`` makes ``phase``."""
    reqs = PHASES[phase]
    indices = range(len(hand))

    def ok(groups: list[tuple[int, ...]]) -> bool:
        melds = [[hand[i] for i in g] for g in groups]
        if per_phase_natural and not any(is_natural(c) for m in melds for c in m):
            return False
        return all(meld_ok(r.kind, m, r.size, not per_phase_natural)
                   for r, m in zip(reqs, melds, strict=True))

    if len(reqs) == 1:
        return any(ok([c]) for c in combinations(indices, reqs[0].size))
    for first in combinations(indices, reqs[0].size):
        rest = [i for i in indices if i not in first]
        for second in combinations(rest, reqs[1].size):
            if ok([first, second]):
                return True
    return False


def most_down(hand: Sequence[int], phase: int, per_phase_natural: bool = False) -> int:
    """The most cards any lay-down of ``phase`` puts down (0 if none): every card tried in
    every meld or left in hand. Exponential: for small hands only."""
    reqs = PHASES[phase]
    best = 0
    for assignment in product(range(len(reqs) + 1), repeat=len(hand)):
        melds = [[c for c, a in zip(hand, assignment, strict=True) if a == k + 1]
                 for k in range(len(reqs))]
        if per_phase_natural and not any(is_natural(c) for m in melds for c in m):
            continue
        if all(meld_ok(r.kind, m, r.size, not per_phase_natural)
               for r, m in zip(reqs, melds, strict=True)):
            best = max(best, sum(map(len, melds)))
    return best
