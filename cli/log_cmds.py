"""``p2p10 simulate``, ``p2p10 audit`` and ``p2p10 replay``: bots at a table, and saved logs."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from p2p10.audit import AuditReport, audit_bytes
from p2p10.errors import P2P10Error
from p2p10.log import NotALog, fingerprint, read_records
from p2p10.replay import transcript
from p2p10.rules import RuleSet
from p2p10.simulate import PLAYERS, Player, play_game
from protocol.memory import play_table


class UsageError(P2P10Error):
    """A command line that cannot be run as given."""


def add_parsers(sub: Any, rule_options: argparse.ArgumentParser) -> None:
    """Register ``simulate``, ``audit`` and ``replay``."""
    sim = sub.add_parser(
        "simulate", parents=[rule_options], help="play games between bots",
        description="Play complete games between bots. With --crypto every seat is a separate "
                    "peer with its own keys, and the cards are dealt with the full mental-poker "
                    "protocol through an in-process network, exactly as on a LAN.",
        epilog="example: p2p10 simulate --players 4 --games 1 --crypto --save games/")
    sim.add_argument("--players", type=int, default=4, metavar="K", help="seats at the table, 2-6 (4)")
    sim.add_argument("--games", type=int, default=1, metavar="N", help="games to play (1)")
    sim.add_argument("--policies", default="greedy", metavar="A,B",
                     help=f"bot policies, given to the seats in turn ({', '.join(PLAYERS)}; default greedy)")
    sim.add_argument("--crypto", action="store_true", help="deal with the full protocol, peer by peer")
    sim.add_argument("--save", type=Path, metavar="DIR", help="save each game's log in DIR (needs --crypto)")
    sim.add_argument("--seed", type=int, metavar="S",
                     help="make the games reproducible (test randomness: never for real play)")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.set_defaults(func=cmd_simulate)

    audit = sub.add_parser(
        "audit", help="check a saved game from its first entry to its last",
        description="Check every signature, the hash chain, who wrote each entry, every shuffle "
                    "against its revealed seed, every token and proof, every move against the "
                    "rules, and every hand and score. Exit status: 0 a clean, complete game; "
                    "1 a violation (with the seat, the entry and the reason) or an unfinished "
                    "log; 2 not a game log.")
    audit.add_argument("file", type=Path, metavar="FILE", help="a .p2p10 game log")
    audit.add_argument("--json", action="store_true", help="print one JSON object")
    audit.set_defaults(func=cmd_audit)

    replay = sub.add_parser(
        "replay", help="a game's transcript, hand by hand and turn by turn",
        description="Print a saved game as a transcript. --as SEAT shows that seat's own cards as "
                    "it saw them; without it, a spectator's view: hidden cards appear only at each "
                    "hand's end-of-hand reveal.")
    replay.add_argument("file", type=Path, metavar="FILE", help="a .p2p10 game log")
    replay.add_argument("--hand", type=int, metavar="N", help="only hand N (1 is the first)")
    replay.add_argument("--as", dest="seat", type=int, metavar="SEAT", help="see the game as seat SEAT (1-6)")
    replay.set_defaults(func=cmd_replay)


def _policies(text: str) -> list[Player]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in PLAYERS]
    if unknown or not names:
        raise UsageError(f"unknown policy {', '.join(unknown) or repr(text)}; "
                         f"choose from {', '.join(PLAYERS)}")
    return [PLAYERS[n] for n in names]


def cmd_simulate(args: argparse.Namespace) -> int:
    """Play ``--games`` games and report each one and the totals."""
    rules: RuleSet = args.rules
    if not 2 <= args.players <= 6:
        raise UsageError(f"--players must be 2 to 6, not {args.players}")
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.save is not None and not args.crypto:
        raise UsageError("--save needs --crypto: only games dealt with the protocol have a signed log")
    policies = _policies(args.policies)
    names = [n.strip() for n in args.policies.split(",") if n.strip()]
    seat_policy = [names[s % len(names)] for s in range(args.players)]
    players = [policies[s % len(policies)] for s in range(args.players)]
    show_progress = sys.stderr.isatty() and not args.json
    results: list[dict[str, Any]] = []
    started = time.perf_counter()
    for game in range(args.games):
        seed = None if args.seed is None else args.seed * 1_000_003 + game
        if show_progress:
            print(f"\rgame {game + 1}/{args.games}…", end="", file=sys.stderr, flush=True)
        result: dict[str, Any]
        if args.crypto:
            path = args.save / f"game-{game + 1:04d}.p2p10" if args.save is not None else None
            run = play_table(players, rules, seed=seed, save=path,
                             names=[f"{seat_policy[s]} {s + 1}" for s in range(args.players)])
            table = run.peers[0].table
            assert table is not None
            engine = table.engine
            problems = [f"seat {p.seat + 1}: {p.violation}" for p in run.peers if p.violation is not None]
            if problems:
                raise P2P10Error("a peer found a violation in a game between honest bots: "
                                 + "; ".join(problems))
            result = {"entries": len(run.log), "bytes": sum(len(e.raw) for e in run.log),
                      "log": str(path) if path is not None else None}
        else:
            record = play_game(players, rules, random.Random(seed))
            engine = record.state
            result = {"events": len(record.events)}
        assert engine.winner is not None
        result = {"game": game + 1, "winner": engine.winner + 1, "hands": len(engine.sheet),
                  "totals": list(engine.totals), **result}
        results.append(result)
        if not args.json:
            if show_progress:
                print("\r", end="", file=sys.stderr)
            saved = f"; saved {result['log']}" if result.get("log") else ""
            size = f", {result['entries']} entries" if "entries" in result else ""
            print(f"game {game + 1}: seat {result['winner']} ({seat_policy[engine.winner]}) won after "
                  f"{result['hands']} hands; totals {' '.join(map(str, engine.totals))}{size}{saved}")
    seconds = time.perf_counter() - started
    wins = [sum(1 for r in results if r["winner"] == s + 1) for s in range(args.players)]
    if args.json:
        print(json.dumps({"games": args.games, "players": args.players, "crypto": args.crypto,
                          "seconds": round(seconds, 3), "policies": seat_policy,
                          "options": list(rules.options()), "wins_by_seat": wins, "results": results}))
    else:
        print(f"{args.games} game(s) in {seconds:.1f} s ({args.games / seconds:.2f} games/s); "
              f"wins by seat: {' '.join(map(str, wins))}")
    return 0


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise NotALog(f"{path}: no such file") from None
    except IsADirectoryError:
        raise NotALog(f"{path} is a directory, not a game log") from None
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
        "verdict": report.verdict(),
    }


def cmd_audit(args: argparse.Namespace) -> int:
    """Audit a log; exit 0 clean, 1 violation or incomplete, 2 not a log."""
    report = audit_bytes(_read(args.file))
    if args.json:
        print(json.dumps(_report_json(args.file, report)))
        return 0 if report.clean else 1
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
    print(report.verdict())
    return 0 if report.clean else 1


def cmd_replay(args: argparse.Namespace) -> int:
    """Print a game's transcript."""
    records = read_records(_read(args.file))
    viewer = None if args.seat is None else args.seat - 1
    if viewer is not None and viewer < 0:
        raise UsageError("--as takes a seat number from 1")
    if args.hand is not None and args.hand < 1:
        raise UsageError("--hand takes a hand number from 1")
    for line in transcript(records.items, viewer, args.hand):
        print(line)
    if records.torn:
        print(f"(The last {records.torn} bytes of the file are not a whole entry.)")
    return 0
