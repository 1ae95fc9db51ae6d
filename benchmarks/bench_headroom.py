"""The ceiling of ``hard``'s rules: how much more it would win if it could see the hidden cards.

Prints figures, never pass/fail. See benchmarks/README.md.

    python benchmarks/bench_headroom.py             # 500 games a match, 12 matches, about 10 min on 2 cores
    python benchmarks/bench_headroom.py --quick     # 20 games a match, a smoke run
    python benchmarks/bench_headroom.py --seats 4 --games 2000 --json

Three cheats, which live here and nowhere else (no command can seat them), play ``hard``'s own
rules (:class:`p2p10.bots.LookAheadPolicy` without look-ahead) with the hidden cards handed to
the rules that guess at them:

* ``peek`` sees the draw pile's top card. Not yet down, it takes the discard or draws, whichever
  card leaves its hand nearer its phase (then with more of its cards going down with it); it
  draws when the two are alike, and takes a wild as ``hard`` does.
* ``feeder`` knows the next player's hand, for one rule only: a discard *feeds* that player
  exactly when it would bring its phase nearer, or is a wild (``hard`` guesses from what that
  player took this hand).
* ``seer`` is both, and knows every hand: a Skip goes to whoever is nearest going out: down
  with the fewest cards, else missing the fewest cards.

Each plays one seat against ``normal`` bots, beside ``hard`` itself, over the same seeds as
``bench_ladder.py`` (7,000,000 on, seats rotating). Whatever a fair bot could gain by guessing
better what these two know is bounded by what they gain by knowing it. Reported per match: the
wins with a Wilson 95% interval, parity, and how often the upper bot and (on average) each
``normal`` bot made their phase in a hand.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import time
from collections.abc import Sequence
from typing import Any

# benchmarks/bench_ladder.py: its seeds, so that the hard rows are its matches.
from bench_ladder import HELD_OUT_SEED, progress

from cli.simulate_cmd import wilson
from p2p10.bots import POLICIES, DiscardKey, LookAheadPolicy, next_seat
from p2p10.cards import is_skip, is_wild
from p2p10.engine import GameState
from p2p10.events import Discard, DrawStock, Event, SeatEvent, TakeDiscard
from p2p10.measure import missing, naturals_down
from p2p10.rules import RuleSet
from p2p10.simulate import play_game

ISSUE_27 = {2: 0.60, 4: 0.32, 6: 0.22}  # hard's targets against normal bots


class Watching(LookAheadPolicy):
    """``hard`` handed the whole game, every card shown, before each of its decisions; the
    cheats below read what they are said to see in it, and nothing more."""

    def __init__(self) -> None:
        super().__init__(0)
        self.full: GameState | None = None  # the whole game, every card shown: set per event

    def watch(self, state: GameState, event: Event) -> None:
        """``play_game``'s event hook: keep the whole state the next decision is made in."""
        self.full = state


class Peek(Watching):
    """``hard`` that sees the draw pile's top card when it chooses where to draw from."""

    def _draw(self, view: GameState, seat: int, rng: random.Random) -> SeatEvent:
        move = super()._draw(view, seat, rng)
        full, top = self.full, view.top_discard()
        if (full is None or not full.stock or view.down[seat] is not None or top is None
                or is_skip(top) or is_wild(top)):
            return move  # a wild on the discard pile is taken, as hard takes it
        hand = view.hand_cards(seat)
        phase = self.target_phase(view, seat, hand)
        if phase is None:
            return move
        taken = with_card(hand, top, phase, view.rules)
        drawn = with_card(hand, full.known[full.stock[-1]], phase, view.rules)
        # Alike, it draws: taking would show the others a card of its hand for nothing.
        return TakeDiscard(seat) if taken < drawn else DrawStock(seat)


def with_card(hand: Sequence[int], card: int, phase: int, rules: RuleSet) -> tuple[int, int]:
    """How ``hand`` stands with ``card`` added (smaller is better): the cards it misses for
    ``phase``, then minus its natural cards that go down with the phase."""
    cards = (*hand, card)
    need = missing(cards, phase, rules)
    return need, -naturals_down(cards, need, phase, rules)


class Feeder(Watching):
    """``hard`` that knows whether a discard feeds the next player: that player's hand."""

    def _hand(self, seat: int) -> tuple[int, ...]:
        assert self.full is not None
        return tuple(self.full.known[slot] for slot in self.full.hands[seat])

    def feeds(self, following: int | None, card: int) -> bool | None:
        """Whether ``card`` brings ``following``'s phase nearer (None: not known here)."""
        full = self.full
        if full is None or following is None or full.down[following] is not None:
            return None
        phase = full.phase_of(following)
        if phase is None:
            return None
        if is_wild(card):
            return True
        hand = self._hand(following)
        rules = full.rules
        return not is_skip(card) and missing((*hand, card), phase, rules) < missing(hand, phase, rules)

    def rank_discards(self, view: GameState, seat: int, options: list[Discard], hand: Sequence[int],
                      phase: int) -> list[tuple[DiscardKey, Discard]]:
        following = next_seat(view, seat)
        ranked = []
        for key, move in super().rank_discards(view, seat, options, hand, phase):
            feeds = self.feeds(following, move.card)
            ranked.append((key if feeds is None else key._replace(feeds=feeds), move))
        ranked.sort(key=lambda item: item[0])
        return ranked


class Seer(Peek, Feeder):
    """``peek`` and ``feeder`` at once, knowing every hand: who is nearest going out too."""

    def skip_target_key(self, view: GameState, target: int) -> tuple[int, int, int, int]:
        full = self.full
        assert full is not None
        phase = full.phase_of(target)
        if full.down[target] is not None:
            near = (0, len(full.hands[target]))
        else:
            near = (1, missing(self._hand(target), phase, full.rules) if phase is not None else 9)
        return (-near[0], -near[1], len(view.made[target]), -view.totals[target])


CHEATS: dict[str, type[Watching]] = {"peek": Peek, "feeder": Feeder, "seer": Seer}
BOTS = ("hard", *CHEATS)  # in the order the matches are played and printed
_SEATED: dict[str, Watching] = {}  # one cheat of each kind per process


def _one(job: tuple[str, int, int]) -> tuple[bool, int, float, int]:
    """Game ``game`` of ``bot`` against normal bots: whether it won, the hands it made its
    phase in, the hands each normal bot made its phase in (their mean), and the hands played."""
    bot, players, game = job
    seat = game % players
    lineup = [POLICIES["normal"]] * players
    hook = None
    if bot == "hard":
        lineup[seat] = POLICIES["hard"]
    else:
        cheat = _SEATED.setdefault(bot, CHEATS[bot]())
        lineup[seat] = cheat
        hook = cheat.watch
    state = play_game(lineup, RuleSet(), random.Random(HELD_OUT_SEED + game), on_event=hook).state
    hands = [row for row in state.sheet if not row.tie]
    others = [s for s in range(players) if s != seat]
    made = sum(row.made[seat] for row in hands)
    made_others = sum(sum(row.made[s] for s in others) / len(others) for row in hands)
    return state.winner == seat, made, made_others, len(hands)


def match(bot: str, players: int, games: int, pool: Any) -> dict[str, Any]:
    """Play one match and return its figures."""
    started = last = time.perf_counter()
    wins = made = hands = 0
    made_others = 0.0
    jobs = [(bot, players, game) for game in range(games)]
    for done, (won, mine, theirs, played) in enumerate(pool.imap_unordered(_one, jobs, chunksize=4), 1):
        wins += won
        made += mine
        made_others += theirs
        hands += played
        if time.perf_counter() - last > 30:
            last = time.perf_counter()
            progress(f"  {bot} vs normal x{players - 1}: {done}/{games} games, {wins / done:.3f} so far")
    low, high = wilson(wins, games)
    return {"bot": bot, "players": players, "games": games, "wins": wins, "win_rate": wins / games,
            "ci95": [low, high], "parity": 1 / players, "made": made / hands,
            "made_by_normal": made_others / hands, "seconds": time.perf_counter() - started}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=500, help="games per match (500)")
    parser.add_argument("--quick", action="store_true", help="20 games per match, a smoke run")
    parser.add_argument("--seats", type=int, action="append", choices=(2, 3, 4, 5, 6),
                        help="play at this many seats only (again for more; default 2, 4 and 6)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="processes to play on (all cores)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args()
    games = 20 if args.quick else args.games
    results = []
    with multiprocessing.Pool(args.jobs) as pool:
        for players in args.seats or (2, 4, 6):
            for bot in BOTS:
                progress(f"{bot} vs normal x{players - 1}: {games} games on {args.jobs} processes")
                results.append(match(bot, players, games, pool))
    if args.json:
        print(json.dumps({"meta": {"games": games, "jobs": args.jobs, "seed": HELD_OUT_SEED,
                                   "python": platform.python_version(), "machine": platform.platform()},
                          "matches": results}))
        return 0
    print(f"hard's ceiling: one bot against normal bots ({games} games a match, seeds {HELD_OUT_SEED} on)")
    print(f"{'bot':<6}{'seats':>6}{'wins':>7}{'win rate':>10}  {'95% CI':<16}{'parity':>7}"
          f"{'target':>8}{'made':>8}{'normal':>8}")
    for r in results:
        low, high = r["ci95"]
        target = ISSUE_27.get(r["players"])
        print(f"{r['bot']:<6}{r['players']:>6}{r['wins']:>7}{r['win_rate']:>10.3f}  [{low:.3f}, {high:.3f}]  "
              f"{r['parity']:>6.3f}{'' if target is None else f'{target:.2f}':>8}{r['made']:>8.3f}"
              f"{r['made_by_normal']:>8.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
