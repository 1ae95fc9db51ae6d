"""``p2p10 replay``: a saved game at the table, or its transcript.

Imported only when the command runs (its options are in :mod:`cli.log_parsers`): reading a log
loads the dealing cryptography."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from cli import UsageError
from cli.log_files import read_log_file
from p2p10.errors import ProtocolError
from p2p10.i18n import _, ngettext
from p2p10.log import Records, parse_entry
from p2p10.replay import transcript
from p2p10.table import TableState, fold


def _check_hand(records: Sequence[bytes], hand: int) -> None:
    """Refuse ``--hand`` beyond the hands the log holds, before the screen or the transcript
    starts. The log is folded only until that hand starts; one that breaks before is left to
    the transcript, which says where."""
    table: TableState | None = None
    for raw in records:
        try:
            table = fold(table, parse_entry(raw), defer_proofs=True)
        except ProtocolError:
            return
        if table.hands_started >= hand:
            return
    played = table.hands_started if table is not None else 0
    if played == 0:
        raise UsageError(_("--hand {hand}: this log has no hand (it ends before the first is "
                           "dealt)").format(hand=hand))
    if played == 1:
        raise UsageError(_("--hand {hand}: this log has only 1 hand (1)").format(hand=hand))
    # TRANSLATORS: {n} is always 2 or more.
    raise UsageError(ngettext("--hand {hand}: this log has only {n} hand (1 to {n})",
                              "--hand {hand}: this log has only {n} hands (1 to {n})",
                              played).format(hand=hand, n=played))


def _write_html(args: argparse.Namespace, records: Sequence[bytes]) -> int:
    """``--html -o FILE``: the game as one self-contained web page."""
    from cli.web.page import write_page  # only --html needs the page builder
    from cli.web.replay_html import replay_page

    output: Path = args.output
    print(write_page(replay_page(records, args.file), output))
    return 0


def _check_replay_options(args: argparse.Namespace) -> None:
    """``--html`` and ``-o`` go together and with nothing that picks a view; a usage error
    otherwise."""
    if args.html and args.output is None:
        raise UsageError(_("--html needs -o FILE.html: the file to write the page to"))
    if args.output is not None and not args.html:
        raise UsageError(_("-o is for --html: the page's file"))
    if args.html and (args.text or args.hand is not None or args.seat is not None):
        raise UsageError(_("--html makes a page of the whole game, every seat's view in it: it takes no "
                           "--text, --hand or --as"))


def _viewer(args: argparse.Namespace, items: Sequence[bytes]) -> int | None:
    """The seat whose view is replayed (``--as``, counted from 0), None for a spectator's;
    ``--hand`` checked against the log."""
    viewer = None if args.seat is None else args.seat - 1
    if viewer is not None and viewer < 0:
        raise UsageError(_("--as takes a seat number from 1"))
    if args.hand is not None:
        if args.hand < 1:
            raise UsageError(_("--hand takes a hand number from 1"))
        _check_hand(items, args.hand)
    return viewer


def _print_transcript(records: Records, viewer: int | None, hand: int | None) -> int:
    """The game's transcript on standard output, then what is wrong with the file, if
    anything; 0 for a clean log, 1 otherwise."""
    lines = transcript(records.items, viewer, hand)
    while True:
        try:
            print(next(lines))
        except StopIteration as done:
            violation = done.value
            break
    if violation is None and records.torn:
        # The verdict word is a documented token, the same in every language (see p2p10 audit).
        print("DAMAGED: " + ngettext("the last {n} byte of the file is not a whole entry.",
                                     "the last {n} bytes of the file are not a whole entry.",
                                     records.torn).format(n=records.torn))
        return 1
    if not records.items:
        print(_("The log is empty: it holds no entry, not even the table."))
        return 1
    return 0 if violation is None else 1


def cmd_replay(args: argparse.Namespace) -> int:
    """Step through a game at the table (on a terminal), print its transcript, or write it as
    a web page."""
    _check_replay_options(args)
    records = read_log_file(args.file)
    if args.html:
        if not records.items:
            print(_("The log is empty: it holds no entry, not even the table."))
            return 1
        return _write_html(args, records.items)
    viewer = _viewer(args, records.items)
    if not args.text and sys.stdout.isatty() and sys.stdin.isatty() and records.items:
        from cli.table.replay_view import ReplayApp  # only the viewer needs prompt_toolkit

        viewer_app = ReplayApp(records.items, viewer, args.ascii, args.hand)
        asyncio.run(viewer_app.run())
        return 0
    return _print_transcript(records, viewer, args.hand)
