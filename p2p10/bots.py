"""Bots: policies that choose a move from what their seat may see, and nothing more.

A policy is ``policy(view, seat, rng) -> move``. ``view`` is :meth:`GameState.seen_by`'s
redaction of the game for ``seat`` (its own hand, the table, the discard pile, every seat's
phase, score and hand size, and this hand's public moves): it holds no other seat's hidden card,
so a policy cannot cheat by construction. Through a peer the view is the peer's own fold, which
never had the hidden cards to begin with.

Policies:

* ``random``: a uniformly random legal move.
* ``greedy``: simple and sensible (a baseline).
* ``easy``, ``normal``, ``hard``: the strong policy at three levels (:class:`StrongPolicy`). It
  measures a hand by how many cards it still *misses* for its phase (the fewest wilds that would
  complete it, found with the exact solver) and plays the seeds' strategy: take the discard only
  when it lowers that count (or, once down, when it can be hit at once); lay down at once; hit
  everything that fits; throw Skips early, at whoever is closest to going out or furthest ahead;
  keep wilds; discard the card whose loss costs least, never what the next player has been
  collecting; under ``order=any`` aim at the phase the hand is nearest to. ``hard`` also counts
  what goes down with the phase, sheds dear cards when an opponent is about to go out, keeps
  the cards a draw could make hittable and orders its hits; ``easy`` makes a person's mistakes.
  ``hard`` is a :class:`LookAheadPolicy`: given a think budget (``--think-budget``, default
  0) it plays its close calls out over the cards it cannot see (:mod:`p2p10.search`).
  ``benchmarks/bench_ladder.py`` measures each level against every level below.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from p2p10.cards import DECK_SIZE, colour, face_id, is_natural, is_skip, is_wild, number, points
from p2p10.engine import GameState
from p2p10.events import Discard, DrawStock, Hit, SeatEvent, TakeDiscard
from p2p10.game_fields import MAX_PLAYERS
from p2p10.measure import MAX_MISSING, missing, naturals_down
from p2p10.melds import Meld, hit_ends
from p2p10.moves import discard_moves, hit_moves, hit_targets, lay_down_options, legal_moves
from p2p10.rules import PHASES, RuleSet
from p2p10.search import CONFIDENCE, NoWorld, best_move
from p2p10.solver import solve

Policy = Callable[[GameState, int, random.Random], SeatEvent]


# ------------------------------------------------------------------------ baselines

def random_player(view: GameState, seat: int, rng: random.Random) -> SeatEvent:
    """A uniformly random legal move."""
    return rng.choice(legal_moves(view, seat))


def _usefulness(card: int, hand: Sequence[int], phase: int | None) -> float:
    """How much a card helps toward ``phase`` (higher keeps it longer)."""
    if is_wild(card):
        return 100.0
    if is_skip(card) or phase is None:
        return -1.0
    kinds = {r.kind for r in PHASES[phase]}
    others = [c for c in hand if c != card and is_natural(c)]
    score = 0.0
    if "set" in kinds:
        score += 3 * sum(1 for c in others if number(c) == number(card))
    if "run" in kinds:
        near = {number(c) for c in others if 0 < abs(number(c) - number(card)) <= 3}
        score += 1.5 * len(near) - (2 if any(number(c) == number(card) for c in others) else 0)
    if "color" in kinds:
        score += sum(1 for c in others if colour(c) == colour(card))
    return score


def greedy_player(view: GameState, seat: int, rng: random.Random) -> SeatEvent:
    """A simple sensible player: takes the discard when it makes the phase, lays down the
    best arrangement, hits everything it can, throws Skips at the leader, and discards the
    least useful card (dearest first)."""
    hand = view.hand_cards(seat)
    phase = view.phase_of(seat)
    if view.stage == "draw":
        top = view.top_discard()
        takeable = top is not None and not is_skip(top)
        if takeable and top is not None and view.down[seat] is None and phase is not None:
            without = solve(hand, phase, view.rules)
            with_top = solve(hand + (top,), phase, view.rules)
            if with_top is not None and (without is None or with_top.down > without.down):
                return TakeDiscard(seat)
        if view.stock or not takeable:
            return DrawStock(seat)
        return TakeDiscard(seat)
    lay = lay_down_options(view, seat)
    if lay:
        return max(lay, key=lambda e: sum(len(m.slots) for m in e.melds))
    hits = hit_moves(view, seat)
    if hits:
        return hits[0]
    discards = discard_moves(view, seat)
    skips = [d for d in discards if is_skip(d.card)]
    if skips:
        # Throw Skips early, at whoever has made the most phases (then the lowest total).
        return max(skips, key=lambda d: (len(view.made[d.target]), -view.totals[d.target])
                   if d.target is not None else (-1, 0))
    return min(discards, key=lambda d: (_usefulness(d.card, hand, phase if view.down[seat] is None
                                                    else None), -points(d.card)))


def unseen_cards(view: GameState, seat: int) -> list[int]:
    """Every card ``seat`` has not seen this hand: in other hands, or in the draw pile."""
    seen = set(view.known.values())
    return [c for c in range(DECK_SIZE) if c not in seen]


def next_seat(view: GameState, seat: int) -> int | None:
    """The seat that plays after ``seat`` this hand (None when nobody else is dealt in)."""
    order = view.seats_in_hand
    if seat not in order or len(order) < 2:
        return None
    return order[(order.index(seat) + 1) % len(order)]


@dataclass(frozen=True, slots=True)
class Feed:
    """Why a discard would help the seat that draws next (``seat``): ``wild`` (a wild helps
    anybody), ``hit`` (that seat is down and may hit the card on meld ``value``), or what that
    seat took from the discard pile this hand for its phase: a card of number ``value`` for a
    ``set``, a card of number ``value`` next to it for a ``run``, a card of colour ``value``
    for a ``color`` group."""

    seat: int | None
    kind: Literal["wild", "hit", "set", "run", "color"]
    value: int = 0


def _collected(view: GameState, seat: int) -> tuple[set[int], set[int]]:
    """The numbers and colours ``seat`` took from the discard pile this hand."""
    taken = [m.card for m in view.history if m.seat == seat and m.action == "take"
             and m.card is not None and is_natural(m.card)]
    return {number(c) for c in taken}, {colour(c) for c in taken}


def feed(view: GameState, seat: int, card: int) -> Feed | None:
    """How discarding ``card`` would help the next player to draw, judged from public moves
    (None when it would not): the strong bot keeps such cards, and the hint key says why."""
    following = next_seat(view, seat)
    if is_wild(card):
        return Feed(following, "wild")
    if is_skip(card) or following is None:
        return None
    if view.down[following] is not None:
        fits = next((m for m in hit_targets(view, following) if hit_ends(m, card)), None)
        return Feed(following, "hit", fits.id) if fits is not None else None
    numbers, colours = _collected(view, following)
    phase = view.phase_of(following)
    kinds = {r.kind for r in PHASES[phase]} if phase is not None else set()
    if "color" in kinds and colour(card) in colours:
        return Feed(following, "color", colour(card))
    if "set" in kinds and number(card) in numbers:
        return Feed(following, "set", number(card))
    near = sorted(n for n in numbers if abs(number(card) - n) <= 1)
    return Feed(following, "run", near[0]) if "run" in kinds and near else None


# ------------------------------------------------------------------ the strong bot

class DiscardKey(NamedTuple):
    """How the strong policy ranks a discard (smaller is better to throw): a wild; how many
    more cards the hand misses without it; for ``easy``, whether it breaks a pair; whether it
    feeds the next player; for ``hard`` when an opponent is about to go out, minus its points;
    for ``hard``, minus the natural cards that go down with the phase without it; how useful
    it is (:func:`_usefulness`); minus its points."""

    wild: bool
    cost: int
    breaks_pair: bool
    feeds: bool
    dear: int
    kept_down: int
    useful: float
    minus_points: int


class StrongPolicy:
    """The strong policy at one level: ``easy``, ``normal`` or ``hard``.

    ``normal`` measures a hand by the cards it misses (:func:`missing`), takes the discard only
    when that count falls, lays down at once, hits everything, throws Skips at once at whoever
    is closest to going out, and discards the card whose loss costs least without feeding the
    next player. ``hard`` adds what measured stronger in self-play (``p2p10 simulate``):

    * it counts the cards that will go down with the phase (the solver's plan with the missing
      cards as wilds): among equally costly discards it keeps the ones that go down, and it
      takes a discard that goes down with the phase (one card fewer to be rid of later);
    * when an opponent is down with two cards or fewer, it throws its dearest cards first;
    * once down, it keeps the cards one draw could make hittable (a gap of one next to a run,
      counted over the cards it has not seen) and hits in the order that lets most cards go.

    ``easy`` makes a person's mistakes: it holds on to pairs, ignores what the others collect,
    takes the discard only when it completes a meld of its phase, and throws a Skip at a random
    player.
    """

    def __init__(self, level: str) -> None:
        if level not in ("easy", "normal", "hard"):
            raise ValueError(f"unknown level {level!r}")
        self.level = level
        self.hard = level == "hard"
        self.easy = level == "easy"

    def __repr__(self) -> str:
        return f"StrongPolicy({self.level!r})"

    def __call__(self, view: GameState, seat: int, rng: random.Random) -> SeatEvent:
        if view.stage == "draw":
            return self._draw(view, seat, rng)
        lay = lay_down_options(view, seat)
        if lay:
            # The arrangement that puts the most cards down; under order=any, the hardest phase
            # among equals (the easy ones stay easy for later).
            return max(lay, key=lambda e: (sum(len(m.slots) for m in e.melds), e.phase))
        hits = hit_moves(view, seat)
        if hits:
            return self._hit(view, seat, hits)
        return self._discard(view, seat, rng)

    # -- what the hand aims at

    def target_phase(self, view: GameState, seat: int, hand: Sequence[int]) -> int | None:
        """The phase ``hand`` aims at: the one allowed phase, or under ``order=any`` the one it
        misses fewest cards for (the harder among equals)."""
        allowed = view.allowed_phases(seat)
        if not allowed:
            return None
        if len(allowed) == 1:
            return allowed[0]
        return min(allowed, key=lambda p: (missing(hand, p, view.rules), -p))

    # -- drawing

    def _draw(self, view: GameState, seat: int, rng: random.Random) -> SeatEvent:
        top = view.top_discard()
        takeable = top is not None and not is_skip(top)
        if not view.stock:
            return TakeDiscard(seat) if takeable else DrawStock(seat)
        if not takeable or top is None:
            return DrawStock(seat)
        hand = view.hand_cards(seat)
        if view.down[seat] is not None:
            fits = any(hit_ends(m, top) for m in hit_targets(view, seat))
            return TakeDiscard(seat) if fits else DrawStock(seat)
        phase = self.target_phase(view, seat, hand + (top,))
        if phase is None:
            return DrawStock(seat)
        if is_wild(top):
            return TakeDiscard(seat)
        return TakeDiscard(seat) if self.takes(view, seat, hand, top, phase) else DrawStock(seat)

    def takes(self, view: GameState, seat: int, hand: Sequence[int], top: int, phase: int) -> bool:
        """Whether the seat, not down, takes the natural card ``top`` for ``phase``."""
        rules = view.rules
        now = missing(hand, phase, rules)
        after = missing((*hand, top), phase, rules)
        if self.easy:
            return after < now and _completes_a_meld(hand, top, phase, rules)
        if after < now:
            return True
        # hard: a card that leaves the hand as near its phase and goes down with it when the
        # phase is made is one card fewer to get rid of afterwards.
        return (self.hard and after == now < MAX_MISSING
                and naturals_down((*hand, top), now, phase, rules) > naturals_down(hand, now, phase, rules))

    # -- hitting: everything that fits; a natural before a wild, so wilds stay flexible

    def _hit(self, view: GameState, seat: int, hits: list[Hit]) -> Hit:
        if self.hard and len(hits) > 1:
            # A wild at the right end of a run can make a held card fit, and so can a natural
            # card on the right one of two runs: first the hit after which most cards can
            # follow this turn.
            budget = [HIT_SEARCH_NODES]
            return max(hits, key=lambda h: (hits_after(view.apply(h), seat, budget=budget),
                                            not is_wild(h.card), points(h.card)))
        return min(hits, key=lambda h: (is_wild(h.card), -points(h.card)))

    # -- discarding

    def skip_target_key(self, view: GameState, target: int) -> tuple[int, int, int, int]:
        """Larger is a better target: down and nearly out, then most phases, then lowest total."""
        down = view.down[target] is not None
        return (int(down), -len(view.hands[target]) if down else 0, len(view.made[target]),
                -view.totals[target])

    def _discard(self, view: GameState, seat: int, rng: random.Random) -> Discard:
        options = discard_moves(view, seat)
        hand = view.hand_cards(seat)
        skips = [d for d in options if is_skip(d.card)]
        if skips:
            if self.easy:
                return rng.choice(skips)
            return max(skips, key=lambda d: self.skip_target_key(view, d.target)
                       if d.target is not None else (-1, 0, 0, 0))
        if view.down[seat] is not None:
            return self._discard_when_down(view, seat, options)
        phase = self.target_phase(view, seat, hand)
        if phase is None:
            return max(options, key=lambda d: points(d.card))
        return self.rank_discards(view, seat, options, hand, phase)[0][1]

    def _discard_when_down(self, view: GameState, seat: int, options: list[Discard]) -> Discard:
        # Nothing fits now. Keep wilds (they will fit somewhere) and, for hard, the cards one
        # draw could make fit; throw the dearest card that the next player cannot use.
        pool = unseen_cards(view, seat) if self.hard else []
        melds = hit_targets(view, seat)
        return min(options, key=lambda d: (
            is_wild(d.card), not self.easy and feed(view, seat, d.card) is not None,
            bridging_outs(d.card, melds, pool) if self.hard else 0, -points(d.card)))

    def rank_discards(self, view: GameState, seat: int, options: list[Discard], hand: Sequence[int],
                      phase: int) -> list[tuple[DiscardKey, Discard]]:
        """The discards, best first, each with its :class:`DiscardKey`."""
        rules = view.rules
        base = missing(hand, phase, rules)
        by_card: dict[int, Discard] = {}
        for d in options:
            by_card.setdefault(d.card, d)
        danger = self.hard and base > 1 and any(
            view.down[s] is not None and len(view.hands[s]) <= 2 for s in view.seats_in_hand if s != seat)
        counts = Counter(number(c) for c in hand if is_natural(c)) if self.easy else Counter[int]()
        scored = []
        for card, move in by_card.items():
            rest = list(hand)
            rest.remove(card)
            need = missing(rest, phase, rules)
            natural = is_natural(card)
            scored.append((DiscardKey(
                wild=is_wild(card),
                cost=need - base,
                breaks_pair=self.easy and natural and counts[number(card)] >= 2,
                feeds=not self.easy and feed(view, seat, card) is not None,
                dear=-points(card) if danger else 0,
                kept_down=-naturals_down(rest, need, phase, rules) if self.hard else 0,
                useful=_usefulness(card, hand, phase),
                minus_points=-points(card)), move))
        scored.sort(key=lambda item: item[0])
        return scored


def _completes_a_meld(hand: Sequence[int], top: int, phase: int, rules: RuleSet) -> bool:
    """Whether ``top`` completes one meld of ``phase`` that the hand's naturals start: a set or
    group with enough of its number or colour, or the run it closes (the easy bot sees only
    that much)."""
    if not is_natural(top):
        return False
    for req in PHASES[phase]:
        if req.kind == "set":
            if sum(1 for c in hand if is_natural(c) and number(c) == number(top)) + 1 >= req.size:
                return True
        elif req.kind == "color":
            if sum(1 for c in hand if is_natural(c) and colour(c) == colour(top)) + 1 >= req.size:
                return True
        elif missing((*hand, top), phase, rules) == 0:
            return True
    return False


# The hit search's budget: hits tried per decision. Its worst case (three wilds in hand, a
# dozen runs at six seats) would otherwise try tens of thousands of hits; a count, not a clock,
# so that a seeded game plays the same on every machine.
HIT_SEARCH_NODES = 300


def hits_after(view: GameState, seat: int, depth: int = 3, budget: list[int] | None = None) -> int:
    """How many more cards ``seat`` can hit in a row from ``view`` (looked at ``depth`` deep,
    trying at most ``budget[0]`` hits, which it counts down; :data:`HIT_SEARCH_NODES` when not
    given). Hits that differ only in which copy of a face goes down are tried once."""
    if budget is None:
        budget = [HIT_SEARCH_NODES]
    best = 0
    tried: set[tuple[int, int, str | None]] = set()
    for h in hit_moves(view, seat) if depth > 0 else ():
        key = (face_id(h.card), h.meld, h.end)
        if key in tried:
            continue
        tried.add(key)
        if budget[0] <= 0:
            break
        budget[0] -= 1
        best = max(best, 1 + hits_after(view.apply(h), seat, depth - 1, budget))
        if best == depth:
            break  # nothing can follow more often than that
    return best


def bridging_outs(card: int, melds: Sequence[Meld], pool: Sequence[int]) -> float:
    """How many of the cards in ``pool`` (those not seen) would, drawn next, make ``card`` fit a
    run: it is two away from an end and the number between (or a wild) fits there; a card three
    away counts a tenth as much. Zero for a card no draw brings nearer."""
    if not is_natural(card):
        return 0.0
    n = number(card)
    best = 0.0
    for meld in melds:
        if meld.kind != "run":
            continue
        if n > meld.high + 1:
            gap, between = n - meld.high - 1, meld.high + 1
        elif n < meld.label - 1:
            gap, between = meld.label - 1 - n, meld.label - 1
        else:
            continue
        if gap > 2:
            continue
        outs = sum(1 for c in pool if is_wild(c) or (is_natural(c) and number(c) == between))
        best = max(best, outs * (1.0 if gap == 1 else 0.1))
    return best


# How many imagined worlds the hard bot plays each close call out in (``--think-budget``).
THINK_BUDGET = 0
# How likely a hand that misses 0, 1, 2, ... cards is to make its phase before the hand ends,
# roughly, at a table of normal bots: how a play-out cut short scores a seat not yet down.
NEAR = (0.9, 0.6, 0.35, 0.15, 0.05)
# A play-out looks this many rounds ahead (then scores the table as it stands): a whole hand
# is too long a way for a few worlds to tell two moves apart through its noise.
ROUNDS_AHEAD = 2


def near_value(state: GameState, seat: int) -> float:
    """How good ``state`` (every card known; where a play-out stopped) is for ``seat``: its
    phase made, or how near it is (:data:`NEAR`), minus its points in hand over 60. The other
    seats are left out: a take or a draw shifts every later draw by one card, so their fortunes
    in the two play-outs differ by chance far more than by the move."""
    hand = [state.known[slot] for slot in state.hands[seat] if slot in state.known]
    phase = state.phase_of(seat)
    if state.down[seat] is not None:
        made = 1.0
    elif state.stage not in ("draw", "play") or phase is None:
        made = 0.0  # the hand is over and the seat did not lay down
    else:
        made = NEAR[min(missing(hand, phase, state.rules), len(NEAR) - 1)]
    return made - sum(points(c) for c in hand) / 60


class LookAheadPolicy(StrongPolicy):
    """``hard`` with look-ahead: :class:`StrongPolicy`'s rules, and its close calls played out
    over the cards it cannot see (:func:`p2p10.search.best_move`), each opponent modelled as
    ``normal``.

    A close call is a discard pile card that would not bring the hand nearer its phase (take
    it to shape the hand, or draw blind?). With a budget of 0 worlds the policy is the rules
    alone. The search is deterministic for a given ``rng``."""

    def __init__(self, worlds: int = THINK_BUDGET, confidence: float = CONFIDENCE) -> None:
        super().__init__("hard")
        if worlds < 0:
            raise ValueError(f"a think budget is 0 worlds or more, not {worlds}")
        self.worlds = worlds
        self.confidence = confidence
        self.rollout: tuple[Policy, ...] = (StrongPolicy("normal"),) * MAX_PLAYERS

    def __repr__(self) -> str:
        return f"LookAheadPolicy(worlds={self.worlds})"

    def _draw(self, view: GameState, seat: int, rng: random.Random) -> SeatEvent:
        move = super()._draw(view, seat, rng)
        top = view.top_discard()
        if (self.worlds == 0 or top is None or not is_natural(top) or not view.stock
                or view.down[seat] is not None):
            return move
        hand = view.hand_cards(seat)
        phase = self.target_phase(view, seat, (*hand, top))
        if phase is None or missing((*hand, top), phase, view.rules) < missing(hand, phase, view.rules):
            return move  # the card brings the phase nearer: no question
        other: SeatEvent = DrawStock(seat) if isinstance(move, TakeDiscard) else TakeDiscard(seat)
        try:
            moves = ROUNDS_AHEAD * 2 * len(view.seats_in_hand) + 2
            return best_move(view, seat, (move, other), self.rollout, rng, self.worlds,
                             value=near_value, moves=moves, confidence=self.confidence).move
        except NoWorld:
            return move


POLICIES: dict[str, Policy] = {
    "random": random_player,
    "greedy": greedy_player,
    "easy": StrongPolicy("easy"),
    "normal": StrongPolicy("normal"),
    "hard": LookAheadPolicy(),
}


def use_think_budget(worlds: int) -> None:
    """From now on, ``POLICIES["hard"]`` looks ahead ``worlds`` imagined deals per close call:
    the ``--think-budget`` of a command, set once before any bot plays (a bot already handed
    its policy keeps the one it has)."""
    POLICIES["hard"] = LookAheadPolicy(worlds)
