"""``p2p10 simulate``: games between bots, and a report per policy.

Imported only when the command runs (its options are in :mod:`cli.log_parsers`), and by each
helper process of ``--jobs``: it loads the protocol stack only for ``--crypto``."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cli import UsageError
from p2p10.bots import POLICIES, use_think_budget
from p2p10.errors import P2P10Error
from p2p10.i18n import _, ngettext, pgettext
from p2p10.rules import RuleSet
from p2p10.simulate import play_game


def _policy_names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in POLICIES]
    if unknown or not names:
        raise UsageError(_("unknown policy {policy}; choose from {choices}").format(
            policy=", ".join(unknown) or repr(text), choices=", ".join(POLICIES)))
    return names


@dataclass(frozen=True)
class _Job:
    """One game of a run: everything a worker process needs."""

    game: int
    seats: tuple[str, ...]
    rules: RuleSet
    seed: int | None
    crypto: bool
    save: Path | None
    think_budget: int | None = None


def _play_one(job: _Job) -> dict[str, Any]:
    if job.think_budget is not None:  # a helper process of --jobs starts with the default
        use_think_budget(job.think_budget)
    players = [POLICIES[name] for name in job.seats]
    started = time.perf_counter()
    result: dict[str, Any] = {}
    if job.crypto:
        # Only here: the peers and their dealing cryptography are a tenth of a second of start-up
        # that games without --crypto, and each of their helper processes, should not pay.
        from protocol.memory import play_table

        path = job.save / f"game-{job.game + 1:04d}.p2p10" if job.save is not None else None
        run = play_table(players, job.rules, seed=job.seed, save=path,
                         names=[f"{name} {s + 1}" for s, name in enumerate(job.seats)])
        table = run.peers[0].table
        assert table is not None
        engine = table.engine
        problems = [_("seat {seat}: {violation}").format(seat=p.seat + 1, violation=p.violation)
                    for p in run.peers if p.violation is not None]
        if problems:
            raise P2P10Error(_("a peer found a violation in a game between honest bots: "
                               "{problems}").format(problems="; ".join(problems)))
        result = {"entries": len(run.log), "log": str(path) if path is not None else None}
    else:
        engine = play_game(players, job.rules, random.Random(job.seed)).state
    assert engine.winner is not None
    return {"game": job.game + 1, "seats": list(job.seats), "winner": engine.winner + 1,
            "hands": len(engine.sheet), "totals": list(engine.totals),
            "seconds": round(time.perf_counter() - started, 4), **result}


def wilson(wins: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% by default)."""
    if trials == 0:
        return (0.0, 1.0)
    p = wins / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # At 0 or every win the interval ends exactly at 0 or 1; rounding would leave it a hair short
    # of the win rate itself.
    low = 0.0 if wins == 0 else max(0.0, centre - half)
    high = 1.0 if wins == trials else min(1.0, centre + half)
    return (low, high)


def _summary(results: list[dict[str, Any]], players: int) -> dict[str, dict[str, Any]]:
    stats: dict[str, dict[str, Any]] = {}
    for name in dict.fromkeys(n for r in results for n in r["seats"]):
        seats = [(r, s) for r in results for s, n in enumerate(r["seats"]) if n == name]
        wins = sum(1 for r, s in seats if r["winner"] == s + 1)
        low, high = wilson(wins, len(seats))
        games = [r for r in results if name in r["seats"]]
        stats[name] = {
            "seats": len(seats), "wins": wins, "win_rate": round(wins / len(seats), 4),
            "ci95": [round(low, 4), round(high, 4)],
            "mean_hands": round(sum(r["hands"] for r in games) / len(games), 2),
            "mean_score": round(sum(r["totals"][s] for r, s in seats) / len(seats), 1),
        }
    return stats


def _progress(done: int, total: int, started: float) -> None:
    width = 30
    filled = width * done // total
    rate = done / max(time.perf_counter() - started, 1e-9)
    # TRANSLATORS: the progress of "p2p10 simulate": games played of all, and games a second.
    counted = ngettext("{done}/{total} game, {rate}/s", "{done}/{total} games, {rate}/s", total)
    print(f"\r[{'#' * filled}{'.' * (width - filled)}] "
          + counted.format(done=done, total=total, rate=f"{rate:.1f}"),
          end="", file=sys.stderr, flush=True)


def _game_line(result: dict[str, Any]) -> str:
    """One game of the run, for a person: who won, after how many hands, the totals, and with
    ``--crypto`` the size of the log and where it was saved."""
    winner = result["winner"]
    figures = {"game": result["game"], "seat": winner, "policy": result["seats"][winner - 1],
               "hands": result["hands"], "totals": " ".join(map(str, result["totals"])),
               "entries": result.get("entries"), "log": result.get("log")}
    if result.get("log"):
        line = ngettext("game {game}: seat {seat} ({policy}) won after {hands} hand; totals "
                        "{totals}, {entries} entries; saved {log}",
                        "game {game}: seat {seat} ({policy}) won after {hands} hands; totals "
                        "{totals}, {entries} entries; saved {log}", result["hands"])
    elif "entries" in result:
        line = ngettext("game {game}: seat {seat} ({policy}) won after {hands} hand; totals "
                        "{totals}, {entries} entries",
                        "game {game}: seat {seat} ({policy}) won after {hands} hands; totals "
                        "{totals}, {entries} entries", result["hands"])
    else:
        line = ngettext("game {game}: seat {seat} ({policy}) won after {hands} hand; totals "
                        "{totals}",
                        "game {game}: seat {seat} ({policy}) won after {hands} hands; totals "
                        "{totals}", result["hands"])
    return line.format(**figures)


def _check_simulate_options(args: argparse.Namespace) -> None:
    """A usage error for a count out of range, or ``--save`` without ``--crypto``."""
    if not 2 <= args.players <= 6:
        raise UsageError(_("--players must be 2 to 6, not {n}").format(n=args.players))
    if args.games < 1:
        raise UsageError(_("--games must be at least 1"))
    if args.jobs < 1:
        raise UsageError(_("--jobs must be at least 1"))
    if args.save is not None and not args.crypto:
        raise UsageError(_("--save needs --crypto: only games dealt with the protocol have a "
                           "signed log"))


def _jobs(args: argparse.Namespace, rules: RuleSet) -> tuple[list[str], list[_Job]]:
    """The seats' policies in the first game, and every game to play."""
    names = _policy_names(args.policies)
    lineup = [names[s % len(names)] for s in range(args.players)]
    jobs = []
    for game in range(args.games):
        # Seats rotate from game to game, so no seat order favours a policy.
        shift = game % args.players
        seats = tuple(lineup[(s - shift) % args.players] for s in range(args.players))
        seed = None if args.seed is None else args.seed * 1_000_003 + game
        jobs.append(_Job(game, seats, rules, seed, args.crypto, args.save, args.think_budget))
    return lineup, jobs


def _play_all(args: argparse.Namespace, jobs: list[_Job]) -> tuple[list[dict[str, Any]], float]:
    """Every game's result, in order (on ``--jobs`` processes), with progress on a terminal
    and each game's line when asked; and the seconds they took."""
    show_progress = sys.stderr.isatty() and not args.json
    each_game = not args.json and (args.verbose or args.games <= 10)
    results: list[dict[str, Any]] = []
    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        if args.jobs > 1:
            pool = stack.enter_context(multiprocessing.get_context("spawn").Pool(args.jobs))
            outcomes: Iterator[dict[str, Any]] = pool.imap(_play_one, jobs)
        else:
            outcomes = map(_play_one, jobs)
        for result in outcomes:
            results.append(result)
            if show_progress:
                _progress(len(results), args.games, started)
            if each_game:
                if show_progress:
                    print("\r\033[K", end="", file=sys.stderr)
                print(_game_line(result))
    if show_progress:
        print(file=sys.stderr)
    return results, time.perf_counter() - started


def _print_report(args: argparse.Namespace, rules: RuleSet, seconds: float,
                  stats: dict[str, dict[str, Any]]) -> None:
    """The report's summary line and its table, one row per policy."""
    figures = {"games": args.games, "players": args.players, "seconds": f"{seconds:.1f}",
               "rate": f"{args.games / seconds:.2f}", "jobs": args.jobs, "rules": rules.describe()}
    if args.jobs > 1:
        # TRANSLATORS: {players} and {jobs} are always 2 or more.
        summary_line = ngettext("{games} game, {players} players, in {seconds} s ({rate} games/s "
                                "on {jobs} processes); rules: {rules}",
                                "{games} games, {players} players, in {seconds} s ({rate} games/s "
                                "on {jobs} processes); rules: {rules}", args.games)
    else:
        # TRANSLATORS: {players} is always 2 or more.
        summary_line = ngettext("{games} game, {players} players, in {seconds} s ({rate} games/s); "
                                "rules: {rules}",
                                "{games} games, {players} players, in {seconds} s ({rate} games/s); "
                                "rules: {rules}", args.games)
    print(summary_line.format(**figures))
    # TRANSLATORS: the headings of the columns of "p2p10 simulate"'s report, one row per bot
    # policy: its name, the seats it played, the games it won, its win rate, the 95% confidence
    # interval of that rate, the mean number of hands per game and its mean final score. Short
    # words: a column is as wide as its heading, at least 8, 6, 6, 9, 15, 6 and 7 characters.
    headings = (pgettext("simulate report column", "policy"),
                pgettext("simulate report column", "seats"),
                pgettext("simulate report column", "wins"),
                pgettext("simulate report column", "win rate"),
                pgettext("simulate report column", "95% CI"),
                pgettext("simulate report column", "hands"),
                pgettext("simulate report column", "score"))
    w = [max(least, len(heading)) for least, heading in zip((8, 6, 6, 9, 15, 6, 7), headings, strict=True)]
    print(f"{headings[0]:<{w[0]}} {headings[1]:>{w[1]}} {headings[2]:>{w[2]}} {headings[3]:>{w[3]}}  "
          f"{headings[4]:<{w[4]}} {headings[5]:>{w[5]}} {headings[6]:>{w[6]}}")
    for name, row in stats.items():
        low, high = row["ci95"]
        interval = f"[{low:.3f}, {high:.3f}]"
        print(f"{name:<{w[0]}} {row['seats']:>{w[1]}} {row['wins']:>{w[2]}} {row['win_rate']:>{w[3]}.3f}  "
              f"{interval:<{w[4]}} {row['mean_hands']:>{w[5]}.1f} {row['mean_score']:>{w[6]}.1f}")
    print(_("(win rate per seat; a policy no better than the rest wins 1/{players} = {rate})").format(
        players=args.players, rate=f"{1 / args.players:.3f}"))


def cmd_simulate(args: argparse.Namespace) -> int:
    """Play ``--games`` games between the policies and report per policy."""
    rules: RuleSet = args.rules
    _check_simulate_options(args)
    lineup, jobs = _jobs(args, rules)
    results, seconds = _play_all(args, jobs)
    stats = _summary(results, args.players)
    if args.json:
        summary = {"games": args.games, "players": args.players, "seconds": round(seconds, 3),
                   "games_per_second": round(args.games / seconds, 3), "crypto": args.crypto,
                   "options": list(rules.options()), "lineup": lineup, "policies": stats}
        if args.verbose:
            summary["results"] = results
        print(json.dumps(summary))
        return 0
    _print_report(args, rules, seconds, stats)
    return 0
