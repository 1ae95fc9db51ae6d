"""``p2p10 stats``: your record of finished games."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from cli import HelpFormatter, UsageError
from p2p10.i18n import N_, _

NO_GAMES = N_("No finished games yet: play one with 'p2p10 play'.")
"""What ``p2p10 stats`` says with no game on record, in English (shown through ``_()``)."""
HTML_FILE = "record.html"
"""The page ``p2p10 stats --html`` writes without ``-o``, beside the record."""


def add_parser(sub: Any) -> None:
    """Register ``stats``."""
    stats = sub.add_parser(
        "stats", help=_("your record: wins, losses, phases made, best and latest games"),
        description=_("Show your record of finished games (against bots with 'p2p10 play', or "
                      "on the LAN): games won and lost, then each kind of game apart (the "
                      "standard rules, hands=3, ...): won and lost by opponent level and by table "
                      "size (a game against several levels counts under each), phases made per "
                      "hand and your best game (of your wins, the fewest hands, then the lowest "
                      "score); then your latest games. The record is kept in "
                      "$XDG_DATA_HOME/p2p10/record.json (~/.local/share/p2p10/record.json by "
                      "default)."),
        epilog=_("examples: p2p10 stats\n"
                 "          p2p10 stats --json\n"
                 "          p2p10 stats --html -o record.html"),
        formatter_class=HelpFormatter)
    stats.add_argument("--json", action="store_true", help=_("print one JSON object"))
    stats.add_argument("--html", action="store_true",
                       help=_("write the record as one self-contained web page, with charts "
                              "(record.html beside the record, or -o FILE.html)"))
    # TRANSLATORS: the metavar of stats' -o/--output, a file to write.
    stats.add_argument("-o", "--output", type=Path, metavar=_("FILE.html"),
                       help=_("with --html: the file to write, FILE.html"))
    stats.set_defaults(func=cmd_stats)


def cmd_stats(args: argparse.Namespace) -> int:
    """Print the record (as text, or as one JSON object with ``--json``)."""
    # Imported here: the record's model and JSON are start-up that the other commands should
    # not pay for.
    import json

    from protocol.record_store import load, record_path

    if args.output is not None and not args.html:
        raise UsageError(_("-o is for --html: the page's file"))
    if args.html and args.json:
        raise UsageError(_("--html and --json: choose one"))
    path = record_path()
    record = load(path)
    if args.html:
        from cli.web.page import write_page  # only --html needs the page builder
        from cli.web.stats_html import stats_page

        output: Path = args.output or path.with_name(HTML_FILE)
        if args.output is None:
            output.parent.mkdir(parents=True, exist_ok=True)
        print(write_page(stats_page(record, path), output))
    elif args.json:
        print(json.dumps({"file": str(path), **record.summary()}))
    elif not record.games:
        print(_(NO_GAMES))
    else:
        print("\n".join(record.report_lines()))
        print("\n" + _("Record: {path}").format(path=path))
    return 0
