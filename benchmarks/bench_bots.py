"""Figures for the bots: how long each policy takes to decide a move, and games per second.

Prints measurements, never pass/fail; nothing here asserts a time. See benchmarks/README.md.

    python benchmarks/bench_bots.py              # the full run (a few minutes on 2 cores)
    python benchmarks/bench_bots.py --quick      # a smoke run of a few seconds
    python benchmarks/bench_bots.py --json       # one JSON object with every figure on stdout

Decision time: each policy sits at seat 1 of 4-player games against three greedy bots, and
every call it makes is timed (draws, lay-downs, hits and discards alike). The baseline is the
greedy policy timed the same way in the same run. Games per second: four copies of the policy
at one table, full-information games with the engine checking every move. Hint key: the time
of ``p2p10.advice.advise`` (the advising bot's move and its reason) at every decision of seat 1.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import statistics
import sys
import time
from typing import Any

from p2p10 import measure
from p2p10.advice import ADVISOR_LEVEL, advise
from p2p10.bots import POLICIES, LookAheadPolicy, Policy
from p2p10.engine import GameState
from p2p10.events import SeatEvent
from p2p10.rules import RuleSet
from p2p10.simulate import play_game

ORDER = ("random", "greedy", "easy", "normal", "hard")
LOOK_AHEAD = 8  # the think budget of the decision-time row of hard with its look-ahead


def progress(message: str) -> None:
    """One progress line on stderr (never stdout, which carries the figures)."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def decision_times(name: str, games: int, seed: int, policy: Policy | None = None) -> list[float]:
    """Milliseconds of every decision ``name`` (or ``policy``) makes at seat 1 of 4-player
    games vs greedy."""
    policy = policy or POLICIES[name]
    times: list[float] = []

    def timed(view: GameState, seat: int, rng: random.Random) -> SeatEvent:
        started = time.perf_counter()
        move = policy(view, seat, rng)
        times.append((time.perf_counter() - started) * 1000)
        return move

    lineup: list[Policy] = [timed, POLICIES["greedy"], POLICIES["greedy"], POLICIES["greedy"]]
    for game in range(games):
        play_game(lineup, RuleSet(), random.Random(seed + game))
    return times


def games_per_second(name: str, games: int, seed: int) -> tuple[float, float]:
    """Self-play games per second, and mean hands per game, for four copies of ``name``."""
    started = time.perf_counter()
    hands = 0
    for game in range(games):
        hands += len(play_game([POLICIES[name]] * 4, RuleSet(), random.Random(seed + game)).state.sheet)
    return games / (time.perf_counter() - started), hands / games


def advice_times(games: int, seed: int, runs: int) -> dict[str, float]:
    """advise() at every decision of seat 1 (the advising bot) in 4-player games against three
    greedy bots: each run times every position once, the bots' solver cache cleared first (a
    player's process has no bot warming it); per-run median, p90, p99 and max in milliseconds,
    and the median of each over the runs."""
    positions: list[tuple[GameState, int]] = []

    def recording(view: GameState, seat: int, rng: random.Random) -> SeatEvent:
        positions.append((view, seat))
        return POLICIES[ADVISOR_LEVEL](view, seat, rng)

    lineup: list[Policy] = [recording, POLICIES["greedy"], POLICIES["greedy"], POLICIES["greedy"]]
    for game in range(games):
        play_game(lineup, RuleSet(), random.Random(seed + game))
    names = ("You", "Bot 1", "Bot 2", "Bot 3")
    figures: dict[str, list[float]] = {"median_ms": [], "p90_ms": [], "p99_ms": [], "max_ms": []}
    # The thousands of positions kept here would make the collector's full passes the maxima:
    # a player's process holds one game, so they are set aside from collection while timing.
    gc.collect()
    gc.freeze()
    for run in range(runs):
        measure._makes_with.cache_clear()
        times: list[float] = []
        for index, (view, seat) in enumerate(positions):
            started = time.perf_counter()
            advise(view, seat, names, seed + run * len(positions) + index)
            times.append((time.perf_counter() - started) * 1000)
        figures["median_ms"].append(statistics.median(times))
        figures["p90_ms"].append(percentile(times, 0.9))
        figures["p99_ms"].append(percentile(times, 0.99))
        figures["max_ms"].append(max(times))
    gc.unfreeze()
    result = {key: statistics.median(values) for key, values in figures.items()}
    return {"positions": len(positions), "runs": runs, **result}


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a fast smoke run (a few seconds)")
    parser.add_argument("--seed", type=int, default=2026, help="seed of every game (2026)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    parser.add_argument("--think-budget", type=int, default=LOOK_AHEAD, metavar="N",
                        help=f"the look-ahead row: hard with --think-budget N ({LOOK_AHEAD})")
    args = parser.parse_args()
    decide_games = 3 if args.quick else 40
    speed_games = 1 if args.quick else 20
    gc.collect()
    decisions: dict[str, dict[str, float]] = {}
    speed: dict[str, dict[str, float]] = {}
    rows = (*ORDER, f"hard+{args.think_budget}")
    for name in rows:
        progress(f"decision times: {name}")
        look = LookAheadPolicy(args.think_budget) if name not in ORDER else None
        times = decision_times(name, decide_games, args.seed, look)
        decisions[name] = {"decisions": len(times), "median_ms": statistics.median(times),
                           "p90_ms": percentile(times, 0.9), "p99_ms": percentile(times, 0.99),
                           "max_ms": max(times), "mean_ms": statistics.fmean(times)}
    for name in ORDER:
        # Four random players take a long time to finish a game.
        games = 4 if name == "random" and not args.quick else speed_games
        progress(f"self-play games: {name}")
        rate, hands = games_per_second(name, games, args.seed)
        speed[name] = {"games": games, "games_per_second": rate, "mean_hands": hands}
    progress("hint key: advise()")
    hint = advice_times(decide_games, args.seed, 3 if args.quick else 5)
    base = decisions["greedy"]["median_ms"]
    for name in rows:
        decisions[name]["ratio_to_greedy"] = decisions[name]["median_ms"] / base
    result: dict[str, Any] = {
        "meta": {"seed": args.seed, "quick": args.quick, "python": platform.python_version(),
                 "machine": platform.platform()},
        "decisions": decisions,
        "self_play": speed,
        "advice": hint,
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"p2p10 bots benchmark  (seed {args.seed}, {'quick' if args.quick else 'full'} run)")
    print(f"Python {platform.python_version()} on {platform.platform()}")
    print()
    print(f"1. Decision time, ms: the policy at seat 1 of {decide_games} 4-player games vs three greedy bots")
    print(f"   {'policy':<8} {'decisions':>9} {'median':>8} {'p90':>8} {'p99':>8} {'max':>8} {'mean':>8}"
          f" {'x greedy':>9}")
    for name in rows:
        d = decisions[name]
        print(f"   {name:<8} {d['decisions']:>9,} {d['median_ms']:>8.3f} {d['p90_ms']:>8.2f}"
              f" {d['p99_ms']:>8.2f} {d['max_ms']:>8.2f} {d['mean_ms']:>8.3f} {d['ratio_to_greedy']:>9.2f}")
    print()
    print("2. Self-play: four copies of the policy at one table (engine checks every move)")
    print(f"   {'policy':<8} {'games':>6} {'games/s':>9} {'hands/game':>11}")
    for name in ORDER:
        s = speed[name]
        print(f"   {name:<8} {s['games']:>6} {s['games_per_second']:>9.2f} {s['mean_hands']:>11.1f}")
    print()
    print(f"3. Hint key: advise() ({ADVISOR_LEVEL} bot and its reason) at each of seat 1's"
          f" {hint['positions']:,} decisions, ms,")
    print(f"   median over {hint['runs']} runs of each run's figure (solver cache cleared before each run)")
    print(f"   {'median':>8} {'p90':>8} {'p99':>8} {'max':>8}")
    print(f"   {hint['median_ms']:>8.3f} {hint['p90_ms']:>8.2f} {hint['p99_ms']:>8.2f}"
          f" {hint['max_ms']:>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
