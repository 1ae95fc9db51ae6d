"""The difficulty ladder: each bot level against every level below it, heads-up and at four
seats, and ``hard`` at six.

Prints figures, never pass/fail. See benchmarks/README.md.

    python benchmarks/bench_ladder.py                 # 500 games a match (about 90 min on 2 cores)
    python benchmarks/bench_ladder.py --quick         # 20 games a match, a smoke run
    python benchmarks/bench_ladder.py --only hard,normal,4 --games 2000 --jobs 2 --json
    python benchmarks/bench_ladder.py --think-budget 0   # hard without its look-ahead

A match seats one ``upper`` bot with ``players - 1`` copies of ``lower`` (seats rotate from
game to game, so the upper bot plays every seat equally often) and counts the games the
upper bot wins, with a Wilson 95% interval. Parity is 1/players. Standard rules.

The seeds are held out: the levels were tuned on games seeded 100,000 and up (and on
``p2p10 simulate``'s small seeds); this script's games are seeded from 7,000,000 on, and
each match uses the same seeds, so the matches differ only in who plays.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import sys
import time
from typing import Any

from cli.simulate_cmd import wilson
from p2p10.bots import POLICIES, THINK_BUDGET, use_think_budget
from p2p10.rules import RuleSet
from p2p10.simulate import play_game

LEVELS = ("random", "greedy", "easy", "normal", "hard")  # weakest first
# (upper, lower, seats): each level against every one below it, heads-up and at four seats,
# the strongest first; and hard against five normal bots.
MATCHES = tuple((upper, lower, seats) for seats in (2, 4)
                for i, upper in reversed(list(enumerate(LEVELS)))
                for lower in reversed(LEVELS[:i])) + (("hard", "normal", 6),)
HELD_OUT_SEED = 7_000_000


def progress(message: str) -> None:
    """One progress line on stderr (never stdout, which carries the figures)."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def _one(job: tuple[str, str, int, int, int | None]) -> bool:
    """Whether the upper bot wins game ``game`` of its match."""
    upper, lower, players, game, think_budget = job
    if think_budget is not None:
        use_think_budget(think_budget)
    seat = game % players
    lineup = [POLICIES[lower]] * players
    lineup[seat] = POLICIES[upper]
    record = play_game(lineup, RuleSet(), random.Random(HELD_OUT_SEED + game))
    return record.state.winner == seat


def match(upper: str, lower: str, players: int, games: int, pool: Any,
          think_budget: int | None = None) -> dict[str, Any]:
    """Play one match and return its figures."""
    started = time.perf_counter()
    jobs = [(upper, lower, players, game, think_budget) for game in range(games)]
    wins = 0
    last = started
    for done, won in enumerate(pool.imap_unordered(_one, jobs, chunksize=4), start=1):
        wins += won
        if time.perf_counter() - last > 30:
            last = time.perf_counter()
            progress(f"  {upper} vs {lower} x{players - 1}: {done}/{games} games, "
                     f"{wins / done:.3f} so far")
    seconds = time.perf_counter() - started
    low, high = wilson(wins, games)
    return {"upper": upper, "lower": lower, "players": players, "games": games, "wins": wins,
            "win_rate": wins / games, "ci95": [low, high], "parity": 1 / players,
            "seconds": seconds, "games_per_second": games / seconds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=500, help="games per match (500)")
    parser.add_argument("--quick", action="store_true", help="20 games per match, a smoke run")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="processes to play on (all cores)")
    parser.add_argument("--only", metavar="UPPER,LOWER,SEATS", action="append",
                        help="play this match only, e.g. hard,normal,2 (again for more)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--think-budget", type=int, metavar="N",
                        help=f"worlds hard imagines per close call (default {THINK_BUDGET})")
    args = parser.parse_args()
    games = 20 if args.quick else args.games
    matches = MATCHES
    if args.only:
        matches = tuple((upper, lower, int(seats)) for upper, lower, seats
                        in (only.split(",") for only in args.only))
    results = []
    with multiprocessing.Pool(args.jobs) as pool:
        for upper, lower, players in matches:
            progress(f"{upper} vs {lower} x{players - 1}: {games} games on {args.jobs} processes")
            results.append(match(upper, lower, players, games, pool, args.think_budget))
    report: dict[str, Any] = {
        "meta": {"games": games, "jobs": args.jobs, "seed": HELD_OUT_SEED, "quick": args.quick,
                 "think_budget": THINK_BUDGET if args.think_budget is None else args.think_budget,
                 "python": platform.python_version(), "machine": platform.platform()},
        "matches": results,
    }
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"p2p10 difficulty ladder  ({games} games a match, seeds {HELD_OUT_SEED} on, standard rules)")
    print(f"{'match':<26}{'seats':>6}{'wins':>7}{'win rate':>10}  {'95% CI':<16}{'parity':>7}{'games/s':>9}")
    for r in results:
        name = f"{r['upper']} vs {r['lower']}" + (f" x{r['players'] - 1}" if r["players"] > 2 else "")
        low, high = r["ci95"]
        print(f"{name:<26}{r['players']:>6}{r['wins']:>7}{r['win_rate']:>10.3f}  "
              f"[{low:.3f}, {high:.3f}]  {r['parity']:>6.3f}{r['games_per_second']:>9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
