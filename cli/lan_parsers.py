"""The options of ``p2p10 host``, ``p2p10 join``, ``p2p10 tables`` and ``p2p10 resume``.

Their code is in :mod:`cli.lan_cmds`, imported only when one of them runs: it needs the LAN stack
(aiohttp, zeroconf), a few tenths of a second of start-up that ``--help`` and the other commands
should not pay."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from cli import run_later
from p2p10.bots import POLICIES
from p2p10.engine import MAX_PLAYERS, MIN_PLAYERS
from p2p10.liveness import AWAY_AFTER


def add_parsers(sub: Any, rule_options: argparse.ArgumentParser) -> None:
    """Register ``host``, ``join``, ``tables`` and ``resume``."""
    host = sub.add_parser(
        "host", parents=[rule_options], help="open a table on the LAN for others to join",
        description="Open a table on this machine: it listens for players, who sit down with "
                    "'p2p10 join HOST:PORT'. The host is seat 1 and just a peer: nobody deals, every "
                    "seat checks every card. Once the table is full everybody connects to everybody "
                    "and the game starts. Each peer saves its own log and secrets as it goes.",
        epilog="example: p2p10 host --seats 3 --start-when-full --autoplay greedy -o hands=1",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    host.add_argument("--name", help="your name at the table (your login name)")
    host.add_argument("--seats", type=int, default=4, metavar="N",
                      help=f"seats at the table, you included, {MIN_PLAYERS}-{MAX_PLAYERS} (4)")
    host.add_argument("--start-when-full", action="store_true",
                      help="start as soon as every seat is taken (otherwise: when you press Enter; "
                           "always, when standard input is not a terminal)")
    host.add_argument("--bots", type=int, default=0, metavar="N",
                      help="seats played by bots on this machine, marked as yours (0)")
    host.add_argument("--level", default="normal", choices=list(POLICIES),
                      help="how well your bots play (normal)")
    host.add_argument("--port", type=int, default=0, metavar="P", help="port to listen on (any free one)")
    host.add_argument("--table", metavar="TITLE", help="the table's name on the network (NAME's table)")
    host.add_argument("--quiet-network", action="store_true",
                      help="do not announce the table with Zeroconf (join by address only)")
    _common(host)
    host.set_defaults(func=run_later("cli.lan_cmds", "cmd_host"))

    join = sub.add_parser(
        "join", help="sit down at a table on the LAN",
        description="Sit down at a table that 'p2p10 host' opened, found by its name on the "
                    "network, or at HOST:PORT (the host prints its address), and play that seat "
                    "when the table starts.",
        epilog="examples:\n  p2p10 join --name Bob\n  p2p10 join \"Ann's table\" --name Bob\n"
               "  p2p10 join 192.168.1.20:41234 --name Bob --autoplay greedy",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    join.add_argument("address", nargs="?", metavar="TABLE|HOST:PORT",
                      help="a table's name as 'p2p10 tables' lists it, or where the host listens "
                           "(none: the open tables on the network; the only one is joined, "
                           "several are listed to choose from)")
    join.add_argument("--timeout", type=float, default=10.0, metavar="S",
                      help="how long to look for a table on the network (up to 10 s)")
    join.add_argument("--name",
                      help="your name at the table (your login name; the host numbers a name "
                           "already taken)")
    _common(join)
    join.set_defaults(func=run_later("cli.lan_cmds", "cmd_join"))

    tables = sub.add_parser(
        "tables", help="list the tables open on the network",
        description="Listen for tables announced on the network (Zeroconf) and list them. An "
                    "announcement is a hint, never trusted: what you sit down at is checked when "
                    "you join.")
    tables.add_argument("--timeout", type=float, default=3.0, metavar="S", help="how long to listen (3 s)")
    tables.add_argument("--interface", metavar="ADDR", help="listen on this address only (all)")
    tables.add_argument("--json", action="store_true", help="print one JSON object")
    tables.set_defaults(func=run_later("cli.lan_cmds", "cmd_tables"))

    resume = sub.add_parser(
        "resume", help="go back to a LAN game this machine left mid-way",
        description="Start a seat again from its saved files (the log, the secrets and the roster "
                    "beside it) after the program was killed or the machine went down: it finds "
                    "the other peers again, fetches what it missed, checks it, and plays on.",
        epilog="example: p2p10 resume ~/.local/share/p2p10/games/20261129-2054-a1b64915-seat2.p2p10 "
               "--autoplay greedy",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    resume.add_argument("file", type=Path, metavar="FILE", help="the seat's .p2p10 game log")
    resume.add_argument("--interface", metavar="ADDR",
                        help="the address to listen on (the one the seat had)")
    resume.add_argument("--level", default="normal", choices=list(POLICIES),
                        help="how well the bots this machine runs play (normal)")
    _playing(resume)
    resume.set_defaults(func=run_later("cli.lan_cmds", "cmd_resume"))


def _playing(parser: argparse.ArgumentParser) -> None:
    """How this seat is played: ``host``, ``join`` and ``resume``."""
    parser.add_argument("--autoplay", metavar="POLICY",
                        help=f"let a bot play this seat with no terminal ({', '.join(POLICIES)})")
    parser.add_argument("--ascii", action="store_true", help="draw the table with ASCII only")
    parser.add_argument("--away-after", type=float, metavar="S", default=AWAY_AFTER,
                        help="count a machine as away once no link to it has been up for S seconds "
                             f"(default {AWAY_AFTER:.0f}); a player who is connected and thinking "
                             "is never away")
    parser.add_argument("--think", type=float, metavar="S", default=0.0,
                        help="with --autoplay: the bot takes S seconds over each move (to watch it "
                             "play, or to try the table's patience)")
    parser.add_argument("--go-on-after", type=float, metavar="S",
                        help="once a machine has been away S seconds, agree to go on without it "
                             "(a bot takes its seats until it comes back; default: ask on screen)")


def _common(parser: argparse.ArgumentParser) -> None:
    """What ``host`` and ``join`` share: how the seat is played, where it listens and saves."""
    _playing(parser)
    parser.add_argument("--interface", default="0.0.0.0", metavar="ADDR",
                        help="the address to listen on and to give the other peers (all interfaces)")
    parser.add_argument("--save", type=Path, metavar="DIR",
                        help="save the log and secrets in DIR (default: the data directory)")
    parser.add_argument("--reachable-at", metavar="HOST:PORT",
                        help="the address the other peers dial to reach this one, when it is not "
                             "where it listens (a forwarded port, a proxy)")
