"""``p2p10 audit``: a saved game checked from its first entry to its last.

Imported only when the command runs (its options are in :mod:`cli.log_parsers`): the checks
load the dealing cryptography."""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Any

from cli import UsageError
from cli.log_files import opened
from p2p10.audit import AuditReport, audit_stream
from p2p10.i18n import _, ngettext, pgettext
from p2p10.log import NotALog, fingerprint


def _report_json(path: Path, report: AuditReport) -> dict[str, Any]:
    table = report.table
    violation = report.violation
    return {
        "file": str(path),
        "clean": report.clean,
        "every_proof": report.every_proof,
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
        "damaged": None if report.damage is None else {
            "entry": report.damage.seq, "reason": report.damage.reason},
        "takeovers": [{"seat": s + 1, "entry": t.seq, "agreed_by": [a + 1 for a in t.agreed_by],
                       "runner": t.runner + 1} for t in report.takeovers for s in t.seats],
        "returns": [{"seat": s + 1, "entry": r.seq, "away": r.away, "hand": r.hand + 1}
                    for r in report.returns for s in r.seats],
        "verdict": report.verdict(),
    }


def checking_pool(jobs: int) -> contextlib.AbstractContextManager[Executor | None]:
    """The helper processes of an audit on ``jobs`` processes (``--jobs``): each hand's checks
    are shared by ``jobs`` helpers while this process folds on (the fold is cheap beside the
    proofs, and waits for them at the end) (:func:`p2p10.audit.audit_stream`); None for 1. A
    ``jobs`` below 1 is refused at once, before the file is opened; the helpers start only
    when the audit sends them work."""
    if jobs < 1:
        raise UsageError(_("--jobs must be at least 1"))
    if jobs == 1:
        return contextlib.nullcontext()
    # Forked helpers start at once with everything imported (a spawned one would import the
    # program again, which costs more than it saves on one game).
    fork = "fork" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if fork else None)
    return ProcessPoolExecutor(jobs, mp_context=context)


def cmd_audit(args: argparse.Namespace) -> int:
    """Audit a log; exit 0 clean, 1 violation, damaged or incomplete, 2 not a log."""
    with checking_pool(args.jobs) as pool, opened(args.file) as stream:
        try:
            report = audit_stream(stream, pool, every_proof=not args.by_reveals)
        except OSError as err:
            raise NotALog(f"{args.file}: {err.strerror}") from None
    if args.json:
        print(json.dumps(_report_json(args.file, report)))
        return report.exit_status
    table = report.table
    print(ngettext("{file}: {n} entry", "{file}: {n} entries", report.entries).format(
        file=args.file, n=report.entries))
    if table is not None:
        print(_("Game {game}; rules: {rules}").format(game=table.game_id.hex(),
                                                     rules=table.rules.describe()))
        for seat in range(table.players):
            print("  " + _("seat {seat}: {name} key {key}").format(
                seat=seat + 1, name=f"{table.names[seat]:<20}", key=fingerprint(table.keys[seat])))
        width = max(len(n) for n in table.names)
        if report.sheet:
            # TRANSLATORS: the headings of the rows of the audit's score sheet: a row for each
            # hand (its number), then a row of the totals. Short words: the first column is as
            # wide as the longer of them, at least 5 characters.
            hands = pgettext("audit score sheet", "Hands")
            total = pgettext("audit score sheet", "Total")
            first = max(5, len(hands), len(total))
            print(f"{hands:<{first}}" + "".join(f"  {n:>{width}}" for n in table.names))
            for i, row in enumerate(report.sheet):
                cells = "".join(f"  {('-' if p is None else str(p)) + ('*' if m else ' '):>{width}}"
                                for p, m in zip(row.points, row.made, strict=True))
                # TRANSLATORS: a hand's row in the audit's score sheet when the hand ended in a
                # tie; {hand} is its number. Short: the column is 5 characters wide (or as wide as
                # the words "Hands" and "Total" there).
                label = _("{hand} tie").format(hand=i + 1) if row.tie else str(i + 1)
                print(f"{label:<{first}}{cells}")
            print(f"{total:<{first}}" + "".join(f"  {t:>{width - 1}} " for t in table.engine.totals))
            print(_("(* = phase made)"))
        if table.engine.winner is not None:
            print(_("Winner: {name}").format(name=table.name(table.engine.winner)))
        for takeover in report.takeovers:
            print(_("Went on without a machine: {what}").format(what=report.takeover_text(takeover)))
        for back in report.returns:
            print(_("Came back: {what}").format(what=report.return_text(back)))
    print(report.verdict())
    return report.exit_status

