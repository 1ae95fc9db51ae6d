"""Figures for the pure rules core: the meld solver, simulated games, event replay, and
``p2p10 rules solve --json`` on a stream of request lines.

Prints measurements, never pass/fail; nothing here asserts a time. See benchmarks/README.md.

    python benchmarks/bench_rules.py              # the full run (under a minute on 2 cores)
    python benchmarks/bench_rules.py --quick      # a smoke run of a few seconds
    python benchmarks/bench_rules.py --json       # one JSON object with every figure on stdout
    python benchmarks/bench_rules.py --write-requests FILE   # part 4's request lines, to time by hand

Progress goes to stderr. The exit status is 1 only if a replayed game's final state differs
from the live one, or the solve command does not answer every line (correctness failures, not
timing ones); otherwise 0.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from p2p10.cards import DECK_SIZE, card_text, cards_text, is_wild
from p2p10.engine import GameState, fold
from p2p10.events import SeatEvent
from p2p10.rules import PHASES, RuleSet, describe_phase
from p2p10.simulate import GameRecord, Player, Stalled, greedy_player, play_game, random_player
from p2p10.solver import solve

HAND_CARDS = 11  # a hand of 10 plus the card just drawn: what the solver sees at lay-down time
PLAYERS = 4
WILD_RANGE = (4, 6)  # the "many wilds" class: this many wilds (inclusive) in an 11-card hand


@dataclass(frozen=True)
class Settings:
    """How much work each part does."""

    solver_hands: int
    solver_repeats: int
    random_games: int
    greedy_games: int
    replay_repeats: int
    solve_lines: int
    solve_runs: int


FULL = Settings(solver_hands=2000, solver_repeats=3, random_games=16, greedy_games=40, replay_repeats=3,
                solve_lines=20_000, solve_runs=5)
QUICK = Settings(solver_hands=40, solver_repeats=3, random_games=1, greedy_games=2, replay_repeats=2,
                 solve_lines=1_000, solve_runs=2)


# --------------------------------------------------------------------------- helpers


def progress(message: str) -> None:
    """One progress line on stderr (never stdout, which carries the figures)."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), linear interpolation between closest ranks."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    pos = (len(ordered) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


# --------------------------------------------------------------------------- 1. solver


def random_hands(rng: random.Random, count: int) -> list[tuple[int, ...]]:
    """11-card hands off the top of a freshly shuffled 108-card deck."""
    deck = list(range(DECK_SIZE))
    out = []
    for _ in range(count):
        rng.shuffle(deck)
        out.append(tuple(deck[:HAND_CARDS]))
    return out


def wild_hands(rng: random.Random, count: int) -> list[tuple[int, ...]]:
    """11-card hands holding WILD_RANGE wilds, the rest from the other 100 cards."""
    wilds = [c for c in range(DECK_SIZE) if is_wild(c)]
    others = [c for c in range(DECK_SIZE) if not is_wild(c)]
    out = []
    for _ in range(count):
        k = rng.randint(*WILD_RANGE)
        hand = rng.sample(wilds, k) + rng.sample(others, HAND_CARDS - k)
        rng.shuffle(hand)
        out.append(tuple(hand))
    return out


def bench_solver_class(name: str, hands: list[tuple[int, ...]], rules: RuleSet,
                       repeats: int) -> dict[str, Any]:
    """Time every (hand, phase) solve ``repeats`` times, in interleaved passes.

    A call's time is the median of its repeats; the per-phase figures are the median, p99 and
    max of those over the hands. Solves per second is the median over passes of
    (solves in the pass / wall time of the pass).
    """
    phases = sorted(PHASES)
    n_calls = len(hands) * len(phases)
    samples: list[list[float]] = [[] for _ in range(n_calls)]
    pass_rates: list[float] = []
    makes = [0] * len(phases)
    # Warm-up, not recorded.
    for phase in phases:
        for hand in hands[:50]:
            solve(hand, phase, rules)
    clock = time.perf_counter
    gc_was_enabled = gc.isenabled()
    gc.disable()  # as timeit does: no collector pauses inside the per-call timings
    try:
        for r in range(repeats):
            progress(f"solver, {name} hands: pass {r + 1}/{repeats} ({n_calls} solves)")
            i = 0
            pass_start = clock()
            for pi, phase in enumerate(phases):
                for hand in hands:
                    t0 = clock()
                    plan = solve(hand, phase, rules)
                    samples[i].append(clock() - t0)
                    if r == 0 and plan is not None:
                        makes[pi] += 1
                    i += 1
            pass_rates.append(n_calls / (clock() - pass_start))
    finally:
        if gc_was_enabled:
            gc.enable()
    per_call = [statistics.median(s) * 1e6 for s in samples]
    by_phase: dict[str, Any] = {}
    for pi, phase in enumerate(phases):
        chunk = per_call[pi * len(hands):(pi + 1) * len(hands)]
        worst = max(range(len(chunk)), key=chunk.__getitem__)
        by_phase[str(phase)] = {
            "median_us": statistics.median(chunk),
            "p99_us": percentile(chunk, 99),
            "max_us": chunk[worst],
            "makes_fraction": makes[pi] / len(hands),
            "slowest_hand": cards_text(hands[worst]),
        }
    return {
        "hands": len(hands),
        "repeats": repeats,
        "solves": n_calls * repeats,
        "median_us": statistics.median(per_call),
        "p99_us": percentile(per_call, 99),
        "max_us": max(per_call),
        "solves_per_sec": statistics.median(pass_rates),
        "phases": by_phase,
    }


def bench_solver(rng: random.Random, rules: RuleSet, settings: Settings) -> dict[str, Any]:
    classes = {
        "random": random_hands(rng, settings.solver_hands),
        "wild": wild_hands(rng, settings.solver_hands),
    }
    out: dict[str, Any] = {}
    for name, hands in classes.items():
        out[name] = bench_solver_class(name, hands, rules, settings.solver_repeats)
    out["wild"]["wilds_per_hand"] = list(WILD_RANGE)
    # Overall: every solve of both classes, over the time one pass of both takes.
    total = sum(c["hands"] for c in out.values()) * len(PHASES)
    seconds = sum(c["hands"] * len(PHASES) / c["solves_per_sec"] for c in out.values())
    out["solves_per_sec"] = total / seconds
    return out


# --------------------------------------------------------------------------- 2. games


def bench_games(name: str, player: Player, games: int, rng: random.Random,
                rules: RuleSet) -> tuple[dict[str, Any], list[GameRecord]]:
    """Play ``games`` complete 4-player games, timing each."""
    seconds: list[float] = []
    events: list[int] = []
    moves: list[int] = []
    hands: list[int] = []
    records: list[GameRecord] = []
    stalled = 0
    for g in range(games):
        game_rng = random.Random(rng.getrandbits(64))
        t0 = time.perf_counter()
        try:
            record = play_game([player] * PLAYERS, rules, game_rng)
        except Stalled:
            stalled += 1
            progress(f"games, {name}: game {g + 1}/{games} stalled (not counted)")
            continue
        seconds.append(time.perf_counter() - t0)
        records.append(record)
        events.append(len(record.events))
        moves.append(sum(isinstance(e, SeatEvent) for e in record.events))
        hands.append(len(record.state.sheet))
        progress(f"games, {name}: game {g + 1}/{games}: {events[-1]} events, "
                 f"{hands[-1]} hands, {seconds[-1]:.2f} s")
    if not seconds:
        raise SystemExit(f"every {name} game stalled; no figures")
    return {
        "games": len(seconds),
        "stalled": stalled,
        "games_per_sec": len(seconds) / sum(seconds),
        "median_game_s": statistics.median(seconds),
        "max_game_s": max(seconds),
        "events_per_game_median": statistics.median(events),
        "events_per_game_mean": statistics.fmean(events),
        "events_per_game_max": max(events),
        "moves_per_game_median": statistics.median(moves),
        "hands_per_game_median": statistics.median(hands),
        "live_events_per_sec": sum(events) / sum(seconds),
    }, records


# --------------------------------------------------------------------------- 3. replay


def same_outcome(a: GameState, b: GameState) -> bool:
    """Whether two final states agree on everything a game's result is made of."""
    return (a.totals == b.totals and a.winner == b.winner and a.made == b.made
            and a.sheet == b.sheet and a.stage == b.stage)


def bench_replay(records: Sequence[GameRecord], rules: RuleSet, repeats: int) -> dict[str, Any]:
    """Fold every recorded game's events again, ``repeats`` passes; check the outcome."""
    total_events = sum(len(r.events) for r in records)
    rates: list[float] = []
    mismatches = 0
    for r in range(repeats):
        progress(f"replay: pass {r + 1}/{repeats} ({len(records)} games, {total_events} events)")
        elapsed = 0.0
        for record in records:
            t0 = time.perf_counter()
            state = fold(record.events, PLAYERS, rules)
            elapsed += time.perf_counter() - t0
            if r == 0 and not same_outcome(state, record.state):
                mismatches += 1
        rates.append(total_events / elapsed)
    rate = statistics.median(rates)
    return {
        "games": len(records),
        "events": total_events,
        "repeats": repeats,
        "events_per_sec": rate,
        "us_per_event": 1e6 / rate,
        "games_checked": len(records),
        "mismatches": mismatches,
    }


# --------------------------------------------------------------------------- 4. solve --json

# The options part 4's lines carry, with how often (weights out of 100; the rest carry none).
SOLVE_OPTIONS: tuple[tuple[int, Any], ...] = (
    (10, {"natural": "phase"}),
    (10, ["natural=phase"]),
    (5, {"skip_stacking": True, "hit": "own"}),
    (5, ["phases=even", "skip=next"]),
)
# One line in BAD_EVERY is refused, in one of these ways, as a script's mistakes would be.
BAD_EVERY = 100
SOLVE_COMMAND = (sys.executable, "-m", "cli", "rules", "solve", "--json")


def solve_requests(rng: random.Random, count: int) -> list[str]:
    """``count`` request lines for ``p2p10 rules solve --json``: hands of 10 or 11 cards (one in
    five with 4-6 wilds, the rest off a shuffled deck), phases 1..10, a mix of option forms, one
    line in ten written in lower case, and one in BAD_EVERY refused (a bad card, an unknown
    option, a phase out of range, not JSON)."""
    deck = list(range(DECK_SIZE))
    lines = []
    for i in range(count):
        size = rng.choice((10, 11))
        if rng.random() < 0.2:
            hand = list(wild_hands(rng, 1)[0][:size])
        else:
            rng.shuffle(deck)
            hand = deck[:size]
        cards = [card_text(c) for c in hand]
        if rng.random() < 0.1:
            cards = [c.lower() for c in cards]
        request: dict[str, Any] = {"phase": rng.randint(1, 10), "hand": cards}
        pick = rng.randrange(100)
        for weight, options in SOLVE_OPTIONS:
            if pick < weight:
                request["options"] = options
                break
            pick -= weight
        if i % BAD_EVERY == BAD_EVERY - 1:
            mistake = rng.randrange(4)
            if mistake == 0:
                request["hand"][0] = "R13"
            elif mistake == 1:
                request["options"] = ["skip=sideways"]
            elif mistake == 2:
                request["phase"] = 11
            else:
                lines.append("not json")
                continue
        lines.append(json.dumps(request))
    return lines


def bench_solve_json(lines: Sequence[str], runs: int) -> dict[str, Any]:
    """``p2p10 rules solve --json < FILE > /dev/null`` as a subprocess, FILE holding ``lines``:
    the wall time of the whole command (start-up included), median of ``runs``; and the same
    command on an empty input (start-up alone). A first, untimed run checks every line is
    answered."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "requests.jsonl")
        with open(path, "w", encoding="utf-8") as out:
            out.write("".join(line + "\n" for line in lines))

        def run(source: str, sink: int | None) -> subprocess.CompletedProcess[bytes]:
            with open(source, "rb") as stdin:
                return subprocess.run(SOLVE_COMMAND, stdin=stdin, stdout=sink, stderr=subprocess.PIPE,
                                      check=False)

        progress(f"solve --json: checking the answers to {len(lines)} lines")
        checked = run(path, subprocess.PIPE)
        answered = checked.stdout.count(b"\n") if checked.returncode == 0 else -1
        wall: list[float] = []
        empty: list[float] = []
        for r in range(runs):
            progress(f"solve --json: run {r + 1}/{runs} ({len(lines)} lines)")
            t0 = time.perf_counter()
            run(path, subprocess.DEVNULL)
            wall.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            run(os.devnull, subprocess.DEVNULL)
            empty.append(time.perf_counter() - t0)
    seconds = statistics.median(wall)
    startup = statistics.median(empty)
    return {
        "lines": len(lines),
        "runs": runs,
        "lines_per_sec": len(lines) / seconds,
        "median_s": seconds,
        "empty_input_s": startup,
        # The lines alone: over the time beyond start-up (None when the noise swallows it).
        "lines_per_sec_past_startup": len(lines) / (seconds - startup) if seconds > startup else None,
        "answered": answered,
        "all_answered": answered == len(lines),
    }


# --------------------------------------------------------------------------- report


def print_report(result: dict[str, Any]) -> None:
    meta = result["meta"]
    print(f"p2p10 rules benchmark  (seed {meta['seed']}, {'quick' if meta['quick'] else 'full'} run, "
          f"rules: {meta['rules']})")
    print(f"Python {meta['python']} on {meta['platform']}, {meta['cpus']} CPUs")
    print(f"total wall time {meta['wall_s']:.1f} s")
    print()
    solver = result["solver"]
    wlo, whi = solver["wild"]["wilds_per_hand"]
    print("1. Meld solver: solve(hand, phase) on 11-card hands, microseconds per call")
    print(f"   random = off a shuffled 108-card deck; wild = {wlo}-{whi} wilds per hand; "
          f"{solver['random']['hands']} hands per class,")
    print(f"   each call timed {solver['random']['repeats']}x, its median kept")
    print(f"   {'phase':<5} {'':<28} {'random':>26}   {'wild':>26}")
    print(f"   {'':<5} {'':<28} {'median':>8} {'p99':>8} {'max':>8}   {'median':>8} {'p99':>8} {'max':>8}")
    for phase in sorted(PHASES):
        a = solver["random"]["phases"][str(phase)]
        b = solver["wild"]["phases"][str(phase)]
        print(f"   {phase:<5} {describe_phase(phase):<28} "
              f"{a['median_us']:8.1f} {a['p99_us']:8.1f} {a['max_us']:8.1f}   "
              f"{b['median_us']:8.1f} {b['p99_us']:8.1f} {b['max_us']:8.1f}")
    for name in ("random", "wild"):
        c = solver[name]
        print(f"   {name:<6} all phases: median {c['median_us']:.1f} us, p99 {c['p99_us']:.1f} us, "
              f"max {c['max_us']:.1f} us, {c['solves_per_sec']:,.0f} solves/s")
    print(f"   overall: {solver['solves_per_sec']:,.0f} solves/s")
    makes = ", ".join(f"{p}:{solver['random']['phases'][str(p)]['makes_fraction']:.0%}"
                      for p in sorted(PHASES))
    print(f"   (random hands that make the phase: {makes})")
    print()
    print(f"2. Complete {PLAYERS}-player games (play_game), default deal, every decision included")
    print(f"   {'players':<8} {'games':>5} {'games/s':>8} {'median s':>9} {'max s':>7} "
          f"{'events/game':>12} {'(mean)':>8} {'moves':>7} {'hands':>6} {'events/s':>9}")
    for name, g in result["games"].items():
        print(f"   {name:<8} {g['games']:>5} {g['games_per_sec']:8.2f} {g['median_game_s']:9.3f} "
              f"{g['max_game_s']:7.2f} {g['events_per_game_median']:12.0f} "
              f"{g['events_per_game_mean']:8.0f} {g['moves_per_game_median']:7.0f} "
              f"{g['hands_per_game_median']:6.0f} {g['live_events_per_sec']:9,.0f}")
        if g["stalled"]:
            print(f"   ({name}: {g['stalled']} games stalled and are not counted)")
    print()
    rp = result["replay"]
    verdict = "all match" if rp["mismatches"] == 0 else f"{rp['mismatches']} MISMATCHED"
    print("3. Replay: fold(events, players, rules) of the recorded games above")
    print(f"   {rp['games']} games, {rp['events']} events, {rp['repeats']} passes: "
          f"{rp['events_per_sec']:,.0f} events/s ({rp['us_per_event']:.1f} us/event)")
    print(f"   replayed final totals/winner/score sheet vs live: {verdict}")
    print()
    sj = result["solve_json"]
    answered = "every line answered" if sj["all_answered"] else f"{sj['answered']} lines ANSWERED"
    print("4. p2p10 rules solve --json < FILE > /dev/null, a subprocess (start-up included)")
    past = sj["lines_per_sec_past_startup"]
    print(f"   {sj['lines']:,} request lines, {sj['runs']} runs: {sj['lines_per_sec']:,.0f} lines/s "
          f"(median {sj['median_s']:.2f} s; an empty input takes {sj['empty_input_s']:.2f} s); "
          f"{answered}")
    print("   past start-up: " + (f"{past:,.0f} lines/s" if past is not None else "(within the noise)"))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fast smoke run (a few seconds)")
    parser.add_argument("--seed", type=int, default=2024, help="seed for hands and games (default 2024)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    parser.add_argument("-o", "--rule", action="append", default=[], metavar="OPTION",
                        help="a rule option, as in `p2p10 rules` (e.g. natural=phase); repeatable")
    parser.add_argument("--hands", type=int, help="solver hands per class (overrides the preset)")
    parser.add_argument("--random-games", type=int, help="games with random players")
    parser.add_argument("--greedy-games", type=int, help="games with greedy players")
    parser.add_argument("--solve-lines", type=int, help="request lines for rules solve --json")
    parser.add_argument("--write-requests", metavar="FILE",
                        help="write part 4's request lines to FILE and stop (to time the command by hand)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    preset = QUICK if args.quick else FULL
    settings = Settings(
        solver_hands=max(2, args.hands or preset.solver_hands),
        solver_repeats=preset.solver_repeats,
        random_games=max(1, args.random_games or preset.random_games),
        greedy_games=max(1, args.greedy_games or preset.greedy_games),
        replay_repeats=preset.replay_repeats,
        solve_lines=max(1, args.solve_lines or preset.solve_lines),
        solve_runs=preset.solve_runs,
    )
    rules = RuleSet.parse(args.rule)
    started = time.perf_counter()
    # Each part draws from its own stream, so changing one part's size leaves the others' inputs alone.
    def stream(part: str) -> random.Random:
        return random.Random(f"{args.seed}/{part}")

    if args.write_requests:
        # The full run's lines unless --solve-lines says otherwise, --quick or not.
        lines = solve_requests(stream("solve_json"), args.solve_lines or FULL.solve_lines)
        with open(args.write_requests, "w", encoding="utf-8") as out:
            out.write("".join(line + "\n" for line in lines))
        progress(f"wrote {len(lines)} request lines to {args.write_requests}")
        return 0

    solver = bench_solver(stream("solver"), rules, settings)
    games: dict[str, Any] = {}
    records: list[GameRecord] = []
    for name, player, count in (("random", random_player, settings.random_games),
                                ("greedy", greedy_player, settings.greedy_games)):
        games[name], recs = bench_games(name, player, count, stream(name), rules)
        records.extend(recs)
    replay = bench_replay(records, rules, settings.replay_repeats)
    solve_json = bench_solve_json(solve_requests(stream("solve_json"), settings.solve_lines),
                                  settings.solve_runs)

    result = {
        "meta": {
            "seed": args.seed,
            "quick": args.quick,
            "rules": rules.describe(),
            "python": platform.python_version(),
            "platform": platform.platform(terse=True),
            "cpus": os.cpu_count(),
            "wall_s": time.perf_counter() - started,
        },
        "solver": solver,
        "games": games,
        "replay": replay,
        "solve_json": solve_json,
    }
    if args.json:
        print(json.dumps(result, indent=None, sort_keys=False))
    else:
        print_report(result)
    return 1 if replay["mismatches"] or not solve_json["all_answered"] else 0


if __name__ == "__main__":
    sys.exit(main())
