"""``p2p10 simulate``, ``p2p10 audit`` and ``p2p10 replay``: bots at a table, and saved logs."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from cli import UsageError
from p2p10.audit import AuditReport, audit_stream
from p2p10.bots import POLICIES
from p2p10.errors import P2P10Error
from p2p10.log import NotALog, fingerprint, read_records
from p2p10.replay import transcript
from p2p10.rules import RuleSet
from p2p10.simulate import play_game
from protocol.memory import play_table


def add_parsers(sub: Any, rule_options: argparse.ArgumentParser) -> None:
    """Register ``simulate``, ``audit`` and ``replay``."""
    sim = sub.add_parser(
        "simulate", parents=[rule_options], help="play games between bots: a tournament",
        description="Play complete games between bot policies and report, per policy, wins, win "
                    "rate with a 95%% confidence interval, mean hands per game and mean final "
                    "score. Seats rotate from game to game. With --crypto every seat is a separate "
                    "peer with its own keys, and the cards are dealt with the full mental-poker "
                    "protocol through an in-process network, exactly as on a LAN.",
        epilog="examples: p2p10 simulate --policies hard,greedy --players 2 --games 2000 --jobs 2\n"
               "          p2p10 simulate --players 4 --games 1 --crypto --save games/",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sim.add_argument("--players", type=int, default=4, metavar="K", help="seats at the table, 2-6 (4)")
    sim.add_argument("--games", type=int, default=1, metavar="N", help="games to play (1)")
    sim.add_argument("--policies", default="greedy", metavar="A,B",
                     help=f"bot policies for the seats, repeated to fill the table "
                          f"({', '.join(POLICIES)}; default greedy)")
    sim.add_argument("--crypto", action="store_true", help="deal with the full protocol, peer by peer")
    sim.add_argument("--save", type=Path, metavar="DIR", help="save each game's log in DIR (needs --crypto)")
    sim.add_argument("--seed", type=int, metavar="S",
                     help="make the games reproducible (test randomness: never for real play)")
    sim.add_argument("--jobs", type=int, default=1, metavar="J", help="play on J processes (1)")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.add_argument("--verbose", action="store_true", help="a line per game (and every game in --json)")
    sim.set_defaults(func=cmd_simulate)

    audit = sub.add_parser(
        "audit", help="check a saved game from its first entry to its last",
        description="Check every signature, the hash chain, who wrote each entry, every shuffle "
                    "(against its revealed seed, or through its proof of shuffle where the seed "
                    "never came), every token and proof, every move against the rules, and every "
                    "hand and score, and name every time the table went on without a machine (who, "
                    "at which entry, agreed by whom). Exit status: 0 a complete game in which "
                    "every step was checked and passed; 1 a violation (with the seat, the entry "
                    "and the reason) or an unfinished log; 2 not a game log.")
    audit.add_argument("file", type=Path, metavar="FILE", help="a .p2p10 game log")
    audit.add_argument("--json", action="store_true", help="print one JSON object")
    audit.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="J",
                       help="check on J processes: each hand's checks in J - 1 helpers while "
                            "this one reads on (the number of cores)")
    audit.set_defaults(func=cmd_audit)

    replay = sub.add_parser(
        "replay", help="a game's transcript, hand by hand and turn by turn",
        description="Step through a saved game at the table, move by move and hand by hand (on a "
                    "terminal), or print it as a transcript (--text, or into a pipe). --as SEAT "
                    "shows that seat's own cards as it saw them; without it, a spectator's view: "
                    "hidden cards appear only at each hand's end-of-hand reveal.")
    replay.add_argument("file", type=Path, metavar="FILE", help="a .p2p10 game log")
    replay.add_argument("--hand", type=int, metavar="N",
                        help="only hand N (1 is the first); on a terminal, start at hand N")
    replay.add_argument("--as", dest="seat", type=int, metavar="SEAT", help="see the game as seat SEAT (1-6)")
    replay.add_argument("--text", action="store_true", help="print the transcript, even on a terminal")
    replay.add_argument("--ascii", action="store_true", help="on a terminal: no box-drawing characters")
    replay.set_defaults(func=cmd_replay)


def _policy_names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in POLICIES]
    if unknown or not names:
        raise UsageError(f"unknown policy {', '.join(unknown) or repr(text)}; "
                         f"choose from {', '.join(POLICIES)}")
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


def _play_one(job: _Job) -> dict[str, Any]:
    players = [POLICIES[name] for name in job.seats]
    started = time.perf_counter()
    result: dict[str, Any] = {}
    if job.crypto:
        path = job.save / f"game-{job.game + 1:04d}.p2p10" if job.save is not None else None
        run = play_table(players, job.rules, seed=job.seed, save=path,
                         names=[f"{name} {s + 1}" for s, name in enumerate(job.seats)])
        table = run.peers[0].table
        assert table is not None
        engine = table.engine
        problems = [f"seat {p.seat + 1}: {p.violation}" for p in run.peers if p.violation is not None]
        if problems:
            raise P2P10Error("a peer found a violation in a game between honest bots: "
                             + "; ".join(problems))
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
    return (max(0.0, centre - half), min(1.0, centre + half))


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
    print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games, {rate:.1f}/s",
          end="", file=sys.stderr, flush=True)


def cmd_simulate(args: argparse.Namespace) -> int:
    """Play ``--games`` games between the policies and report per policy."""
    rules: RuleSet = args.rules
    if not 2 <= args.players <= 6:
        raise UsageError(f"--players must be 2 to 6, not {args.players}")
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.save is not None and not args.crypto:
        raise UsageError("--save needs --crypto: only games dealt with the protocol have a signed log")
    names = _policy_names(args.policies)
    lineup = [names[s % len(names)] for s in range(args.players)]
    jobs = []
    for game in range(args.games):
        # Seats rotate from game to game, so no seat order favours a policy.
        shift = game % args.players
        seats = tuple(lineup[(s - shift) % args.players] for s in range(args.players))
        seed = None if args.seed is None else args.seed * 1_000_003 + game
        jobs.append(_Job(game, seats, rules, seed, args.crypto, args.save))
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
                winner = result["winner"]
                saved = f"; saved {result['log']}" if result.get("log") else ""
                size = f", {result['entries']} entries" if "entries" in result else ""
                print(f"game {result['game']}: seat {winner} ({result['seats'][winner - 1]}) won after "
                      f"{result['hands']} hands; totals {' '.join(map(str, result['totals']))}{size}{saved}")
    if show_progress:
        print(file=sys.stderr)
    seconds = time.perf_counter() - started
    stats = _summary(results, args.players)
    if args.json:
        summary = {"games": args.games, "players": args.players, "seconds": round(seconds, 3),
                   "games_per_second": round(args.games / seconds, 3), "crypto": args.crypto,
                   "options": list(rules.options()), "lineup": lineup, "policies": stats}
        if args.verbose:
            summary["results"] = results
        print(json.dumps(summary))
        return 0
    print(f"{args.games} game(s), {args.players} players, in {seconds:.1f} s "
          f"({args.games / seconds:.2f} games/s{f' on {args.jobs} processes' if args.jobs > 1 else ''}); "
          f"rules: {rules.describe()}")
    print(f"{'policy':<8} {'seats':>6} {'wins':>6} {'win rate':>9}  {'95% CI':<15} {'hands':>6} {'score':>7}")
    for name, row in stats.items():
        low, high = row["ci95"]
        print(f"{name:<8} {row['seats']:>6} {row['wins']:>6} {row['win_rate']:>9.3f}  "
              f"[{low:.3f}, {high:.3f}]  {row['mean_hands']:>6.1f} {row['mean_score']:>7.1f}")
    print(f"(win rate per seat; a policy no better than the rest wins 1/{args.players} = "
          f"{1 / args.players:.3f})")
    return 0


@contextlib.contextmanager
def _opened(path: Path) -> Iterator[BinaryIO]:
    """``path`` open for reading; a file that cannot be read is :class:`NotALog`."""
    try:
        stream = path.open("rb")
    except FileNotFoundError:
        raise NotALog(f"{path}: no such file") from None
    except IsADirectoryError:
        raise NotALog(f"{path} is a directory, not a game log") from None
    except OSError as err:
        raise NotALog(f"{path}: {err.strerror}") from None
    with stream:
        yield stream


def _read(path: Path) -> bytes:
    with _opened(path) as stream:
        try:
            return stream.read()
        except OSError as err:
            raise NotALog(f"{path}: {err.strerror}") from None


def _report_json(path: Path, report: AuditReport) -> dict[str, Any]:
    table = report.table
    violation = report.violation
    return {
        "file": str(path),
        "clean": report.clean,
        "complete": report.complete,
        "entries": report.entries,
        "players": [{"seat": s + 1, "name": table.names[s], "key": fingerprint(table.keys[s])}
                    for s in range(table.players)] if table else [],
        "options": list(table.rules.options()) if table else [],
        "hands": [{"hand": i + 1, "tie": h.tie, "went_out": h.went_out + 1, "phase": list(h.phase),
                   "made": list(h.made), "points": list(h.points)} for i, h in enumerate(report.sheet)],
        "totals": list(table.engine.totals) if table else [],
        "winner": table.engine.winner + 1 if table and table.engine.winner is not None else None,
        "violation": None if violation is None else {
            "seat": violation.seat + 1 if violation.seat is not None else None,
            "entry": violation.seq, "reason": violation.reason},
        "takeovers": [{"seat": s + 1, "entry": t.seq, "agreed_by": [a + 1 for a in t.agreed_by],
                       "runner": t.runner + 1} for t in report.takeovers for s in t.seats],
        "returns": [{"seat": s + 1, "entry": r.seq, "away": r.away, "hand": r.hand + 1}
                    for r in report.returns for s in r.seats],
        "verdict": report.verdict(),
    }


def cmd_audit(args: argparse.Namespace) -> int:
    """Audit a log; exit 0 clean, 1 violation or incomplete, 2 not a log."""
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    with _opened(args.file) as stream, contextlib.ExitStack() as stack:
        pool = None
        if args.jobs > 1:
            # Forked helpers start at once with everything imported (a spawned one would import
            # the program again, which costs more than it saves on one game).
            context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods()
                                                  else None)
            pool = stack.enter_context(ProcessPoolExecutor(args.jobs - 1, mp_context=context))
        try:
            report = audit_stream(stream, pool)
        except OSError as err:
            raise NotALog(f"{args.file}: {err.strerror}") from None
    if args.json:
        print(json.dumps(_report_json(args.file, report)))
        return report.exit_status
    table = report.table
    print(f"{args.file}: {report.entries} entries")
    if table is not None:
        print(f"Game {table.game_id.hex()}; rules: {table.rules.describe()}")
        for seat in range(table.players):
            print(f"  seat {seat + 1}: {table.names[seat]:<20} key {fingerprint(table.keys[seat])}")
        width = max(len(n) for n in table.names)
        if report.sheet:
            print("Hands" + "".join(f"  {n:>{width}}" for n in table.names))
            for i, row in enumerate(report.sheet):
                cells = "".join(f"  {('-' if p is None else str(p)) + ('*' if m else ' '):>{width}}"
                                for p, m in zip(row.points, row.made, strict=True))
                label = f"{i + 1}{' tie' if row.tie else ''}"
                print(f"{label:<5}{cells}")
            print("Total" + "".join(f"  {t:>{width - 1}} " for t in table.engine.totals))
            print("(* = phase made)")
        if table.engine.winner is not None:
            print(f"Winner: {table.name(table.engine.winner)}")
        for takeover in report.takeovers:
            print(f"Went on without a machine: {report.takeover_text(takeover)}")
        for back in report.returns:
            print(f"Came back: {report.return_text(back)}")
    print(report.verdict())
    return report.exit_status


def cmd_replay(args: argparse.Namespace) -> int:
    """Step through a game at the table (on a terminal), or print its transcript."""
    records = read_records(_read(args.file))
    viewer = None if args.seat is None else args.seat - 1
    if viewer is not None and viewer < 0:
        raise UsageError("--as takes a seat number from 1")
    if args.hand is not None and args.hand < 1:
        raise UsageError("--hand takes a hand number from 1")
    if not args.text and sys.stdout.isatty() and sys.stdin.isatty() and records.items:
        from cli.table_app import ReplayApp  # only the viewer needs prompt_toolkit

        viewer_app = ReplayApp(records.items, viewer, args.ascii, args.hand)
        asyncio.run(viewer_app.run())
        return 0
    lines = transcript(records.items, viewer, args.hand)
    while True:
        try:
            print(next(lines))
        except StopIteration as done:
            violation = done.value
            break
    if violation is None and records.torn:
        print(f"DAMAGED: the last {records.torn} bytes of the file are not a whole entry.")
        return 1
    if not records.items:
        print("The log is empty: it holds no entry, not even the table.")
        return 1
    return 0 if violation is None else 1
