"""The measure of a hand: how many cards it still misses for a phase, and how many of its
natural cards go down with the phase once they arrive.

Below both the legal moves (:mod:`p2p10.moves` asks which phase a screen's hand is nearest to)
and the bots (:mod:`p2p10.bots` plays by it), so that neither imports the other. Every answer
comes from the exact solver; the caches key on a canonical hand, so hands that differ only in
which copies of a card they hold are measured once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

from p2p10.cards import NUMBERED, colour, is_skip, is_wild, number
from p2p10.rules import PHASES, RuleSet
from p2p10.solver import can_make, solve

WILD_IDS = tuple(range(NUMBERED, NUMBERED + 8))
"""The eight wilds' card ids: the wilds a measure adds stand for the cards a hand misses."""
MAX_MISSING = 9
"""What :func:`missing` answers for a hand that even eight wilds do not complete."""


def _canonical(cards: Iterable[int], colourless: bool = False) -> tuple[int, ...]:
    """The hand with Skips dropped and each card replaced by the first free card of its face,
    so that hands that differ only in which copy of a card they hold share a cache entry. With
    ``colourless`` (a phase of sets and runs only, where colours never matter) the k-th card of
    a number becomes copy ``k % 2`` of colour ``k // 2``: a hand of 5s in any colours is one
    entry (the look-ahead asks of many hands that differ only so)."""
    out: list[int] = []
    seen: Counter[int] = Counter()
    for card in cards:
        if is_skip(card):
            continue
        if is_wild(card):
            out.append(NUMBERED + seen[NUMBERED])
            seen[NUMBERED] += 1
            continue
        n = number(card) - 1
        if colourless:
            k = seen[n]
            out.append((k // 2) * 24 + n * 2 + k % 2)
            seen[n] += 1
        else:
            base = colour(card) * 24 + n * 2
            out.append(base + seen[base])
            seen[base] += 1
    return tuple(sorted(out))


@lru_cache(maxsize=64)
def colourless(phase: int) -> bool:
    """Whether ``phase`` is made of sets and runs only (no colour group): colours never matter."""
    return all(r.kind != "color" for r in PHASES[phase])


def _with_wilds(hand: tuple[int, ...], extra: int) -> tuple[int, ...] | None:
    """A canonical hand with ``extra`` more wilds (the next free copies), or None when the deck
    has not that many wilds left."""
    held = sum(1 for c in hand if is_wild(c))
    if held + extra > len(WILD_IDS):
        return None
    return hand + WILD_IDS[held:held + extra]


@lru_cache(maxsize=200_000)
def _makes_with(hand: tuple[int, ...], extra_wilds: int, phase: int, rules: RuleSet) -> bool:
    padded = _with_wilds(hand, extra_wilds)
    return padded is not None and can_make(padded, phase, rules)


def missing(cards: Iterable[int], phase: int, rules: RuleSet) -> int:
    """How many more cards the hand needs for ``phase``: the fewest extra wilds that would
    complete it (``MAX_MISSING`` when even eight wilds do not)."""
    hand = _canonical(cards, colourless(phase))
    spare = len(WILD_IDS) - sum(1 for c in hand if is_wild(c))
    low, high = 0, spare + 1  # answer in [low, high]; high means "not even with every wild"
    while low < high:
        mid = (low + high) // 2
        if _makes_with(hand, mid, phase, rules):
            high = mid
        else:
            low = mid + 1
    return low if low <= spare else MAX_MISSING


def naturals_down(hand: Sequence[int], need: int, phase: int, rules: RuleSet) -> int:
    """How many of ``hand``'s natural cards go down with ``phase`` once the ``need`` cards it
    misses arrive (wilds stand in for them): the rest must be hit or thrown afterwards."""
    return _naturals_down(_canonical(hand, colourless(phase)), need, phase, rules)


@lru_cache(maxsize=100_000)
def _naturals_down(hand: tuple[int, ...], need: int, phase: int, rules: RuleSet) -> int:
    padded = _with_wilds(hand, need)
    if padded is None:
        return 0
    plan = solve(padded, phase, rules)
    # Every wild goes down with the phase (the solver puts the most cards down).
    return 0 if plan is None else plan.down - sum(1 for c in padded if is_wild(c))
