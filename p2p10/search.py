"""Look-ahead over the hidden cards: determinized Monte Carlo search for the ``hard`` bot.

A seat sees its own hand and the table; the other hands and the draw pile are hidden from it.
The search imagines them. A *determinization* (:func:`determinize`) deals the cards the seat has
not seen to the slots it cannot see, consistently with everything public: the cards shown on the
table, the cards taken from the discard pile (they stay shown in the taker's hand), and which
cards each reshuffle put into which part of the draw pile. Each candidate move is then played out
to the end of the hand in the same imagined worlds, every seat played by a rollout policy
(:func:`play_out`), and the end of the hand is scored for the searching seat by
:func:`hand_value`. The heuristic's own choice is listed first and stays the move unless another
candidate beats it, world by world, by more than the noise of so few worlds (:data:`CONFIDENCE`):
the search overrides a good rule only on evidence.

This is flat determinized ("perfect-information") Monte Carlo, as GIB played bridge (Ginsberg
2001), the root of Information Set MCTS (Cowling, Powley and Whitehouse 2012) without the tree:
a Phase 10 turn offers few real choices (take or draw, then which card to let go), and a hand
lasts dozens of turns, so the budget buys more worlds rather than a deeper tree. Every candidate
is scored in the same worlds with the same rollout dice (common random numbers), so two
candidates differ by the move alone and a few dozen rollouts separate them.

Deterministic: every random choice comes from the ``rng`` passed in, and the budget counts
rollouts, never time, so a seeded game plays the same on every machine.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p2p10.cards import DECK_SIZE, points
from p2p10.dealer import reshuffle_events
from p2p10.engine import GameState
from p2p10.events import Reveal, SeatEvent

Policy = Callable[[GameState, int, random.Random], SeatEvent]

# A rollout that has not ended its hand after this many moves is scored where it stands (a hand
# of six players who cannot make their phases can run for hundreds of moves).
ROLLOUT_MOVES = 240


class NoWorld(ValueError):
    """The view admits no determinization (the public record does not add up): the caller
    plays its heuristic move instead. Never raised for a view folded by the engine."""


def hidden_slots(view: GameState, seat: int) -> list[int]:
    """The slots whose card ``seat`` cannot see: in the other hands and in the draw pile."""
    known = view.known
    slots = [s for other in view.seats_in_hand if other != seat
             for s in view.hands[other] if s not in known]
    slots += [s for s in view.stock if s not in known]
    return slots


def determinize(view: GameState, seat: int, rng: random.Random) -> GameState:
    """One world ``seat`` cannot tell from the real one: ``view`` (its own view) with a card at
    every hidden slot, drawn at random from the cards it has not seen.

    A reshuffle put the discard pile's cards into a range of new slots (``view.pools``), so a
    hidden slot of that range holds one of those cards, unless that card has moved on into a
    later reshuffle; the slots of the first deal hold the unseen cards no reshuffle took. Raises
    :class:`NoWorld` when the counts do not match."""
    seen = set(view.known.values())
    hidden = hidden_slots(view, seat)
    claimed: set[int] = set()  # cards of a later reshuffle: not in an earlier range any more
    reveal: list[tuple[int, int]] = []
    rest = hidden
    for first, end, cards in reversed(view.pools):
        here = [s for s in rest if first <= s < end]
        rest = [s for s in rest if not first <= s < end]
        free = sorted(c for c in cards if c not in seen and c not in claimed)
        claimed |= cards
        reveal += _dealt(here, free, rng)
    free = [c for c in range(DECK_SIZE) if c not in seen and c not in claimed]
    reveal += _dealt(rest, free, rng)
    return view.apply(Reveal(tuple(reveal))) if reveal else view


def _dealt(slots: list[int], cards: list[int], rng: random.Random) -> list[tuple[int, int]]:
    if len(slots) != len(cards):
        raise NoWorld(f"{len(slots)} hidden slots for {len(cards)} unseen cards")
    rng.shuffle(cards)
    return list(zip(slots, cards, strict=True))


def play_out(world: GameState, policies: Sequence[Policy], rng: random.Random,
             moves: int = ROLLOUT_MOVES) -> GameState:
    """``world`` (every card known) played on by ``policies[seat]`` for each seat until the hand
    ends (somebody went out) or ``moves`` moves were made; a reshuffle is dealt from ``rng``."""
    state = world
    while moves > 0 and state.stage in ("draw", "play"):
        waiting = state.awaiting()
        if waiting.kind == "reshuffle":
            for event in reshuffle_events(state, rng):
                state = state.apply(event)
            continue
        seat = waiting.seat
        assert seat is not None
        state = state.apply(policies[seat](state, seat, rng))
        moves -= 1
    return state


@dataclass(frozen=True, slots=True)
class Weights:
    """How :func:`hand_value` weighs a hand's end: a phase made counts 1; each point left in
    hand counts ``point``; what the others made and kept counts ``others`` times as much against
    the seat (their mean), since at a full table the race is against the field."""

    point: float = 1 / 60
    others: float = 1.0


def hand_value(state: GameState, seat: int, weights: Weights = Weights()) -> float:
    """How good the hand's end (or where a rollout stopped) is for ``seat``: its phase made,
    minus its points in hand, against the other seats' mean of the same."""
    def score(s: int) -> float:
        kept = sum(points(state.known[slot]) for slot in state.hands[s] if slot in state.known)
        return (state.down[s] is not None) - weights.point * kept

    others = [s for s in state.seats_in_hand if s != seat]
    mean = sum(score(s) for s in others) / len(others) if others else 0.0
    return score(seat) - weights.others * mean


# How sure the search must be before it overrides the first candidate (the heuristic's own
# move): the other's mean advantage over the same worlds must exceed this many standard errors.
# A few worlds give noisy means; taken at face value (or at one standard error) they replaced
# the rules' move by a coin toss in about one close call in five, and the bot made its phase
# less often (57.5% of hands against 60.7%, 200 games at four seats).
CONFIDENCE = 2.0


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the search found: the move chosen, each candidate's mean value in the same order
    as given, and how many worlds each was played in."""

    move: SeatEvent
    means: tuple[float, ...]
    worlds: int


Value = Callable[[GameState, int], float]


def best_move(view: GameState, seat: int, candidates: Sequence[SeatEvent], policies: Sequence[Policy],
              rng: random.Random, worlds: int, value: Value = hand_value,
              confidence: float = CONFIDENCE, moves: int = ROLLOUT_MOVES) -> Verdict:
    """The candidate that does best over ``worlds`` determinizations of ``view``, each candidate
    played out in every world with the same rollout dice. The first candidate is the default:
    another replaces it only if its advantage, world by world, is positive by more than
    ``confidence`` standard errors of its mean (and the best such one does).

    Raises :class:`NoWorld` if the view admits none (see :func:`determinize`)."""
    values: list[list[float]] = [[] for _ in candidates]
    for _ in range(worlds):
        world = determinize(view, seat, rng)
        dice = rng.getrandbits(64)
        for index, move in enumerate(candidates):
            end = play_out(world.apply(move), policies, random.Random(dice), moves)
            values[index].append(value(end, seat))
    means = tuple(sum(v) / worlds if worlds else 0.0 for v in values)
    best = 0
    for index in range(1, len(candidates)):
        if means[index] > means[best] and _surely_better(values[index], values[0], confidence):
            best = index
    return Verdict(candidates[best], means, worlds)


def _surely_better(these: Sequence[float], those: Sequence[float], confidence: float) -> bool:
    """Whether ``these`` beat ``those``, paired world by world, by more than ``confidence``
    standard errors of the mean difference (two worlds at least; a difference that never varies
    counts when it is positive)."""
    diffs = [a - b for a, b in zip(these, those, strict=True)]
    n = len(diffs)
    if n < 2:
        return False
    mean = sum(diffs) / n
    spread = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean > confidence * (spread / n) ** 0.5 and mean > 0
