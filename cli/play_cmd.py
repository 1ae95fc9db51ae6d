"""``p2p10 play``: a game against bots at the terminal table, starting at once."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from p2p10.errors import P2P10Error

LEVELS = ("easy", "normal", "hard")


class NoTerminal(P2P10Error):
    """The table needs a terminal to draw on and read keys from."""


def add_parser(sub: Any, rule_options: argparse.ArgumentParser) -> None:
    """Register ``play``."""
    play = sub.add_parser(
        "play", parents=[rule_options], help="play a game against bots (start here)",
        description="Play Phase 10 against bots at a full-screen table. Every seat is a separate "
                    "peer with its own keys, and the cards are dealt with the full mental-poker "
                    "protocol, exactly as on a LAN. The game's log is saved as it goes; at the end "
                    "the command prints where, for 'p2p10 replay' and 'p2p10 audit'. Press ? at "
                    "the table for the keys.",
        epilog="examples: p2p10 play\n"
               "          p2p10 play --bots 2 --level hard -o phases=even",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    play.add_argument("--bots", type=int, default=3, metavar="N", help="bots at the table, 1-5 (3)")
    play.add_argument("--name", default="You", help="your name at the table (You)")
    play.add_argument("--level", default="normal", choices=LEVELS, help="how well the bots play (normal)")
    play.add_argument("--seed", type=int, metavar="S",
                      help="make the game reproducible (test randomness: never for real play)")
    play.add_argument("--ascii", action="store_true",
                      help="draw cards in text (R7 B12 W S), with no box-drawing characters")
    play.add_argument("--pace", type=float, default=0.6, metavar="SECONDS",
                      help="how long each bot waits before its move (0.6)")
    play.set_defaults(func=cmd_play)


def cmd_play(args: argparse.Namespace) -> int:
    """Play a game at the terminal; print where its log is saved."""
    if not (sys.stdout.isatty() and sys.stdin.isatty()):
        raise NoTerminal("play needs a terminal: its input and output must not be a pipe or a file "
                         "(to watch bots play without one, try 'p2p10 simulate --crypto --save DIR')")
    # Imported here, when a game is to be played: asyncio and the table's peers, which load the
    # dealing cryptography, are start-up that the other commands should not pay for.
    import asyncio

    from p2p10.table import MAX_NAME
    from protocol.local import LocalTable

    name = args.name.strip()
    if not 0 < len(name) <= MAX_NAME or not name.isprintable():
        raise P2P10Error(f"--name takes 1 to {MAX_NAME} printable characters")
    if not 1 <= args.bots <= 5:
        raise P2P10Error(f"--bots must be 1 to 5, not {args.bots}")
    if args.pace < 0:
        raise P2P10Error("--pace cannot be negative")
    # Imported here: prompt_toolkit is a tenth of a second of start-up that only the table needs.
    from cli.table_app import TableApp

    local = LocalTable(name, args.bots, args.level, args.rules, args.seed, pace=args.pace)
    try:
        asyncio.run(TableApp(local, ascii_only=args.ascii).run())
    finally:
        local.close()
    path = local.log_path
    if local.over:
        print("The game is saved in:")
    else:
        print("You left the game before its end. The log so far is saved in:")
    print(f"  {path}")
    print("To see it again move by move, and to check every shuffle, card and score:")
    print(f"  p2p10 replay {path}")
    print(f"  p2p10 audit {path}")
    return 0
