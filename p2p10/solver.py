"""The meld solver: can a hand make a phase, and which lay-down puts the most cards down.

The search is exact. A phase is at most two melds, and the shapes that occur are one run,
one colour group, two sets, or a set and a run. For each shape the solver enumerates every
choice of meld parameters (a set's number, a run's interval, a group's colour) and, for each,
the one real decision left: which meld gets a numbered card that both could use. Given the
parameters, everything else is forced: a set or colour group takes every numbered card that
fits plus every spare wild (they take any number of cards), a run takes exactly one card per
value and a wild for every gap. So the enumeration covers every lay-down, and each candidate
is scored in constant time from prefix counts.

The best lay-down maximises the cards put down (the phase plus extra cards on its own melds),
then the penalty points put down (so dear cards leave the hand first); remaining ties go to
the first candidate in a fixed order, so the answer is deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from p2p10.cards import COLOURS, MAX_NUMBER, MIN_NUMBER, NUMBERED, colour, is_wild, number, points
from p2p10.melds import Meld, hit_ends
from p2p10.rules import DEFAULT, PHASES, MeldKind, MeldReq, RuleSet

WILD_POINTS = 25


@dataclass(frozen=True, slots=True)
class PlannedMeld:
    """One meld of a lay-down: its kind, label and cards (runs in ascending order)."""

    kind: MeldKind
    label: int
    cards: tuple[int, ...]

    @property
    def values(self) -> tuple[int, ...]:
        """The value each card stands for (a number; a colour index for colour groups)."""
        if self.kind == "run":
            return tuple(range(self.label, self.label + len(self.cards)))
        return (self.label,) * len(self.cards)


@dataclass(frozen=True, slots=True)
class LayDownPlan:
    """A complete lay-down of a phase, melds in the phase's order."""

    phase: int
    melds: tuple[PlannedMeld, ...]

    @property
    def down(self) -> int:
        """How many cards go down."""
        return sum(len(m.cards) for m in self.melds)

    @property
    def cards(self) -> tuple[int, ...]:
        """Every card that goes down."""
        return tuple(c for m in self.melds for c in m.cards)


_Melds = tuple[PlannedMeld, ...] | None


# _VALUE_POINTS[v] = the points of a card of number v (every copy scores the same; the red
# one, card 2 * (v - 1), stands for them all).
_VALUE_POINTS = (0, *(points(2 * (v - 1)) for v in range(1, MAX_NUMBER + 1)))


# The meld kinds of each phase, in order: the shape that picks the search.
_SHAPES = {phase: tuple(r.kind for r in reqs) for phase, reqs in PHASES.items()}

_VALUES = range(MIN_NUMBER, MAX_NUMBER + 1)
# number() and colour() of each numbered card (the bounds they check are the caller's here).
_NUMBER_OF = tuple(number(card) for card in range(NUMBERED))
_COLOUR_OF = tuple(colour(card) for card in range(NUMBERED))


@lru_cache(maxsize=1 << MAX_NUMBER)  # one entry per set of numbers held: all of them fit
def _prefix_sums(numbers: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For a hand holding exactly ``numbers``: prefix[x] = how many of the values 1..x-1 are
    present (for O(1) run gaps), and prefix_points[x] = the points of one card of each of them
    (for O(1) run points)."""
    prefix = [0, 0]
    prefix_points = [0, 0]
    for x in _VALUES:
        held = 1 if x in numbers else 0
        prefix.append(prefix[x] + held)
        prefix_points.append(prefix_points[x] + held * _VALUE_POINTS[x])
    return tuple(prefix), tuple(prefix_points)


class _Hand:
    """A hand broken down for the search: numbered cards by number and by colour, wilds."""

    __slots__ = ("by_colour", "by_number", "count", "numbers", "prefix", "prefix_points", "wilds")

    def __init__(self, cards: Iterable[int]) -> None:
        # This runs once per solve, and the bots solve tens of thousands of hands a game: the
        # lists are built with locals and per-card tables rather than attribute lookups and
        # arithmetic, and the prefix sums come from a cache (they depend only on the numbers held).
        by_number: list[list[int]] = [[] for _ in range(MAX_NUMBER + 1)]
        by_colour: list[list[int]] = [[] for _ in COLOURS]
        wilds: list[int] = []
        self.by_number, self.by_colour, self.wilds = by_number, by_colour, wilds
        # Plain card order is ``sort_key`` order within each list: a number's cards ascend by
        # colour, a colour's cards by number, and wilds by id.
        for card in sorted(cards):
            if card < NUMBERED:
                by_number[_NUMBER_OF[card]].append(card)
                by_colour[_COLOUR_OF[card]].append(card)
            elif is_wild(card):
                wilds.append(card)
        self.count = count = [len(cs) for cs in by_number]
        # The numbers held, ascending; the search only tries these (plus, where the rules allow
        # an all-wild set, one number standing for the missing ones).
        self.numbers = numbers = [v for v in _VALUES if count[v]]
        self.prefix, self.prefix_points = _prefix_sums(tuple(numbers))

    def present(self, low: int, high: int) -> int:
        """How many values in low..high have at least one numbered card."""
        return self.prefix[high + 1] - self.prefix[low]

    def run_points(self, low: int, high: int) -> int:
        """The points of one numbered card per present value of low..high."""
        return self.prefix_points[high + 1] - self.prefix_points[low]


def solve(cards: Sequence[int], phase: int, rules: RuleSet = DEFAULT) -> LayDownPlan | None:
    """The lay-down of ``phase`` from ``cards`` that puts the most cards down, or None."""
    hand = _Hand(cards)
    reqs = PHASES[phase]
    kinds = _SHAPES[phase]
    melds: _Melds
    if kinds == ("run",):
        melds = _best_run(hand, reqs[0].size)
    elif kinds == ("color",):
        melds = _best_colour(hand, reqs[0].size)
    elif kinds == ("set", "set"):
        melds = _best_two_sets(hand, reqs, rules.natural_per_phase)
    elif kinds == ("set", "run"):
        melds = _best_set_and_run(hand, reqs, rules.natural_per_phase)
    else:  # pragma: no cover - every phase in PHASES has one of the shapes above
        raise NotImplementedError(f"no solver for phase shape {kinds}")
    return LayDownPlan(phase, melds) if melds is not None else None


def can_make(cards: Sequence[int], phase: int, rules: RuleSet = DEFAULT) -> bool:
    """Whether ``cards`` hold ``phase``."""
    reqs = PHASES[phase]
    if all(r.kind == "set" for r in reqs) and len(reqs) == 2:
        # Bots ask this in their inner loops: stop at the first pair of sets that fits.
        return _two_sets_fit(_Hand(cards), reqs, rules.natural_per_phase)
    return solve(cards, phase, rules) is not None


def meld_partners(card: int, hand: Sequence[int], phase: int) -> tuple[int, ...]:
    """The numbered cards of ``hand`` that can stand with the numbered ``card`` in one meld of
    ``phase``, the wilds making up the rest: a set's number, a group's colour, or a run's
    span (two different numbers that one run of the phase's length covers). What a hint may
    call a card that "fits nothing" has none."""
    partners: list[int] = []
    for held in hand:
        if held >= NUMBERED or held == card:
            continue
        for req in PHASES[phase]:
            if req.kind == "set":
                fits = _NUMBER_OF[held] == _NUMBER_OF[card]
            elif req.kind == "color":
                fits = _COLOUR_OF[held] == _COLOUR_OF[card]
            else:
                fits = 0 < abs(_NUMBER_OF[held] - _NUMBER_OF[card]) < req.size
            if fits:
                partners.append(held)
                break
    return tuple(partners)


def _run_cards(hand: _Hand, low: int, high: int, wilds: list[int],
               skip_value: int = 0) -> tuple[int, ...]:
    """One numbered card per value of low..high, a wild in every gap (and at skip_value)."""
    out: list[int] = []
    spare = iter(wilds)
    for x in range(low, high + 1):
        if x != skip_value and hand.count[x]:
            out.append(hand.by_number[x][0])
        else:
            out.append(next(spare))
    return tuple(out)


def _best_run(hand: _Hand, size: int) -> _Melds:
    w = len(hand.wilds)
    prefix, prefix_points = hand.prefix, hand.prefix_points  # hand.present/run_points, inlined
    best: tuple[int, int, int, int] | None = None
    for low in range(1, MAX_NUMBER - size + 2):
        for high in range(low + size - 1, MAX_NUMBER + 1):
            present = prefix[high + 1] - prefix[low]
            gaps = high - low + 1 - present
            if gaps > w or present == 0:
                continue
            key = (high - low + 1, prefix_points[high + 1] - prefix_points[low] + WILD_POINTS * gaps)
            if best is None or key > best[:2]:
                best = (*key, low, high)
    if best is None:
        return None
    low, high = best[2], best[3]
    return (PlannedMeld("run", low, _run_cards(hand, low, high, hand.wilds)),)


def _best_colour(hand: _Hand, size: int) -> _Melds:
    w = len(hand.wilds)
    best: tuple[int, int, int] | None = None
    for c, naturals in enumerate(hand.by_colour):
        if not naturals or len(naturals) + w < size:
            continue
        key = (len(naturals) + w, sum(map(points, naturals)))
        if best is None or key > best[:2]:
            best = (*key, c)
    if best is None:
        return None
    c = best[2]
    return (PlannedMeld("color", c, tuple(hand.by_colour[c]) + tuple(hand.wilds)),)


def _with_wilds(kind: MeldKind, label: int, naturals: Sequence[int], wilds: Sequence[int]) -> PlannedMeld:
    return PlannedMeld(kind, label, tuple(naturals) + tuple(wilds))


def _two_sets_fit(hand: _Hand, reqs: Sequence[MeldReq], per_phase: bool) -> bool:
    """Whether two sets fit, in O(numbers): the best two numbers are the two most held (the
    larger count for the larger set), or one number split between both sets; wilds fill the
    gaps. Each set needs a natural, or only the phase with ``natural=phase``."""
    big, small = max(reqs[0].size, reqs[1].size), min(reqs[0].size, reqs[1].size)
    w = len(hand.wilds)
    counts = sorted((hand.count[v] for v in range(1, MAX_NUMBER + 1)), reverse=True)
    c1, c2 = counts[0], counts[1]
    if (c2 >= 1 or (per_phase and c1 >= 1)) and max(0, big - c1) + max(0, small - c2) <= w:
        return True
    # One number in both sets needs at least one natural per set (or one in all).
    return c1 >= (1 if per_phase else 2) and max(0, big + small - c1) <= w


# Complexity: the solver's inner loop over pairs of numbers, kept whole for speed (every hint and
# bot decision runs it); tests/test_solver.py checks it against an exhaustive search.
def _best_two_sets(hand: _Hand, reqs: Sequence[MeldReq], per_phase: bool) -> _Melds:
    """The best two sets: every pair of numbers (v1 for the first set, v2 for the second; with
    equal sizes only v1 <= v2), and for one number in both sets the first split that fits.

    Only numbers the hand holds are tried, plus, with ``natural=phase`` (where one set may be
    all wilds), the first missing number of each range: any other missing number gives the
    same cards and points, and ties go to the first pair, so it could never win.
    Each set needs a natural, or only the phase with ``natural=phase``."""
    k1, k2 = reqs[0].size, reqs[1].size
    w = len(hand.wilds)
    count = hand.count
    held = hand.numbers
    missing = [v for v in range(1, MAX_NUMBER + 1) if not count[v]] if per_phase else []
    firsts = held + missing[:1]
    firsts.sort()
    wild_pts = WILD_POINTS * w
    best_down, best_pts = -1, -1
    best: tuple[int, int, int] | None = None  # v1, v2, split
    for v1 in firsts:
        a = count[v1]
        a_pts = a * _VALUE_POINTS[v1]
        need_a = k1 - a if k1 > a else 0  # the wilds the first set lacks with all of v1
        start = v1 if k1 == k2 else 1
        seconds = [v for v in held if v >= start]
        if missing:
            seconds += [v for v in missing if v >= start][:1]
            seconds.sort()  # (held ascends already: only a missing number needs placing)
        for v2 in seconds:
            if v1 != v2:
                b = count[v2]
                if not (a + b >= 1 if per_phase else a >= 1 and b >= 1):
                    continue
                if need_a + (k2 - b if k2 > b else 0) > w:
                    continue
                down, pts = a + b + w, a_pts + b * _VALUE_POINTS[v2] + wild_pts
                if down > best_down or (down == best_down and pts > best_pts):
                    best_down, best_pts, best = down, pts, (v1, v2, a)
                continue
            # One number in both sets: the first split (a to the first set, the rest to the
            # second) that fits; every feasible split puts the same cards down.
            for split in range(a + 1):
                rest = a - split
                if not (a >= 1 if per_phase else split >= 1 and rest >= 1):
                    continue
                if max(0, k1 - split) + max(0, k2 - rest) > w:
                    continue
                down, pts = a + w, a_pts + wild_pts
                if down > best_down or (down == best_down and pts > best_pts):
                    best_down, best_pts, best = down, pts, (v1, v2, split)
                break
    if best is None:
        return None
    v1, v2, a = best
    first = hand.by_number[v1][:a] if v1 == v2 else hand.by_number[v1]
    second = hand.by_number[v2][a:] if v1 == v2 else hand.by_number[v2]
    need1 = max(0, k1 - len(first))
    need2 = max(0, k2 - len(second))
    # The first set takes its gaps plus every spare wild; the second only its gaps.
    wilds1 = hand.wilds[: w - need2]
    wilds2 = hand.wilds[w - need2:]
    assert len(wilds1) >= need1
    return (_with_wilds("set", v1, first, wilds1), _with_wilds("set", v2, second, wilds2))


def _run_intervals(hand: _Hand, size: int) -> list[tuple[int, int, int, int]]:
    """Every run interval of at least ``size`` that the wilds could fill:
    (low, high, values present, points of one card per present value)."""
    w = len(hand.wilds)
    prefix, prefix_points = hand.prefix, hand.prefix_points  # hand.present/run_points, inlined
    out = []
    for low in range(1, MAX_NUMBER - size + 2):
        for high in range(low + size - 1, MAX_NUMBER + 1):
            present = prefix[high + 1] - prefix[low]
            if high - low + 1 - present <= w:
                out.append((low, high, present, prefix_points[high + 1] - prefix_points[low]))
    return out


# Complexity: the solver's inner loop over numbers and run intervals, written out for speed;
# tests/test_solver.py checks it against an exhaustive search.
def _best_set_and_run(hand: _Hand, reqs: Sequence[MeldReq], per_phase: bool) -> _Melds:
    k_set, k_run = reqs[0].size, reqs[1].size
    w = len(hand.wilds)
    intervals = _run_intervals(hand, k_run)
    # An all-wild set (natural=phase only) is as good with any number the hand lacks, so one
    # such number stands for all of them.
    empty = [v for v in range(1, MAX_NUMBER + 1) if not hand.count[v]][:1] if per_phase else []
    numbers = hand.numbers + empty
    wild_pts = WILD_POINTS * w
    count = hand.count
    best_down, best_pts = -1, -1
    best: tuple[int, int, int, bool] | None = None  # v, low, high, run_takes_v
    for v in numbers:
        m = count[v]
        v_pts = _VALUE_POINTS[v] if m else 0
        set_pts_all = m * v_pts
        for low, high, present, run_pts in intervals:
            length = high - low + 1
            # The options for v's cards: (set naturals s, run naturals r, run points, run takes a
            # card of v), tried in this order. Written out rather than looped over: this is the
            # solver's innermost loop.
            if m and low <= v <= high:
                # A card of v goes to the run (with two or more, the rest to the set)...
                s, r, r_pts, run_takes = m - 1, present, run_pts, True
            else:
                s, r, r_pts, run_takes = m, present, run_pts, False
            # Each meld needs a natural, or only the phase with natural=phase; the wilds must
            # fill what both lack.
            if ((s + r >= 1 if per_phase else s >= 1 and r >= 1)
                    and length - r + (k_set - s if k_set > s else 0) <= w):
                down = s + r + w
                pts = set_pts_all - (v_pts if run_takes else 0) + r_pts + wild_pts
                if down > best_down or (down == best_down and pts > best_pts):
                    best_down, best_pts, best = down, pts, (v, low, high, run_takes)
            if m == 1 and run_takes:
                # ...or, with one card of v, it goes to the set and the run gets a wild.
                s, r, r_pts, run_takes = 1, present - 1, run_pts - v_pts, False
                if ((s + r >= 1 if per_phase else s >= 1 and r >= 1)
                        and length - r + (k_set - s if k_set > s else 0) <= w):
                    down = s + r + w
                    pts = set_pts_all - (v_pts if run_takes else 0) + r_pts + wild_pts
                    if down > best_down or (down == best_down and pts > best_pts):
                        best_down, best_pts, best = down, pts, (v, low, high, run_takes)
    if best is None:
        return None
    v, low, high, run_takes = best
    inside = low <= v <= high and hand.count[v] > 0
    skip_value = v if inside and not run_takes else 0
    gaps = sum(1 for x in range(low, high + 1) if x == skip_value or not hand.count[x])
    run = _run_cards(hand, low, high, hand.wilds[:gaps], skip_value)
    set_naturals = hand.by_number[v][1:] if run_takes else hand.by_number[v]
    return (_with_wilds("set", v, set_naturals, hand.wilds[gaps:]), PlannedMeld("run", low, run))


def hit_options(card: int, melds: Iterable[Meld]) -> list[tuple[int, str | None]]:
    """Every (meld id, end) where ``card`` can be hit; end is 'low'/'high' for runs."""
    return [(m.id, end) for m in melds for end in hit_ends(m, card)]
