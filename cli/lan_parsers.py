"""The options of ``p2p10 host``, ``p2p10 join``, ``p2p10 watch``, ``p2p10 tables`` and
``p2p10 resume``.

Their code is in :mod:`cli.lan_cmds`, imported only when one of them runs: it needs the LAN stack
(aiohttp, zeroconf), a few tenths of a second of start-up that ``--help`` and the other commands
should not pay."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from cli import HelpFormatter, add_think_option, add_web_options, run_later
from p2p10.bots import POLICIES
from p2p10.game_fields import MAX_PLAYERS, MIN_PLAYERS
from p2p10.i18n import _
from p2p10.liveness import ALONE_AFTER, AWAY_AFTER

DEFAULT_SPECTATORS = 8  # protocol.gallery.DEFAULT_SPECTATORS, without importing the LAN stack


def add_parsers(sub: Any, rule_options: argparse.ArgumentParser) -> None:
    """Register ``host``, ``join``, ``watch``, ``tables`` and ``resume``."""
    host = sub.add_parser(
        "host", parents=[rule_options], help=_("open a table on the LAN for others to join"),
        description=_("Open a table on this machine: it listens for players, who sit down with "
                      "'p2p10 join HOST:PORT'. The host is seat 1 and just a peer: nobody deals, "
                      "every seat checks every card. Once the table is full everybody connects to "
                      "everybody and the game starts. Each peer saves its own log and secrets as "
                      "it goes."),
        epilog=_("example: p2p10 host --seats 3 --start-when-full --autoplay greedy -o hands=1"),
        formatter_class=HelpFormatter)
    host.add_argument("--name", help=_("your name at the table (your login name)"))
    host.add_argument("--seats", type=int, default=4, metavar="N",
                      help=_("seats at the table, you included, {low}-{high} (4)").format(
                          low=MIN_PLAYERS, high=MAX_PLAYERS))
    host.add_argument("--start-when-full", action="store_true",
                      help=_("start as soon as every seat is taken (otherwise: when you press "
                             "Enter; always, when standard input is not a terminal)"))
    host.add_argument("--bots", type=int, default=0, metavar="N",
                      help=_("seats played by bots on this machine, marked as yours (0)"))
    host.add_argument("--level", default="normal", choices=list(POLICIES),
                      help=_("how well your bots play (normal)"))
    host.add_argument("--port", type=int, default=0, metavar="P",
                      help=_("port to listen on (any free one); with --reachable-at, each of your "
                             "bots listens on the next port, P+1, P+2...: forward those too"))
    # TRANSLATORS: the metavar of --table, the table's name (as in "p2p10 host --table TITLE").
    host.add_argument("--table", metavar=_("TITLE"),
                      # TRANSLATORS: NAME is your name at the table (--name).
                      help=_("the table's name on the network (NAME's table)"))
    host.add_argument("--quiet-network", action="store_true",
                      help=_("do not announce the table with Zeroconf (join by address only)"))
    host.add_argument("--private", action="store_true",
                      help=_("seat only who knows the table's code, which the host shows (a number "
                             "and two words, like 7-orbit-tulip); spectators need it too"))
    host.add_argument("--spectators", type=int, default=DEFAULT_SPECTATORS, metavar="N",
                      help=_("how many people may watch the game without a seat, with 'p2p10 "
                             "watch' ({n}; 0: nobody)").format(n=DEFAULT_SPECTATORS))
    _common(host)
    host.set_defaults(func=run_later("cli.lan_cmds", "cmd_host"))

    join = sub.add_parser(
        "join", help=_("sit down at a table on the LAN"),
        description=_("Sit down at a table that 'p2p10 host' opened, found by its name on the "
                      "network, or at HOST:PORT (the host prints its address), and play that "
                      "seat when the table starts."),
        # TRANSLATORS: "Ann's table" is a table's name, as a host would call it; Bob a player.
        epilog=_("examples:\n  p2p10 join --name Bob\n  p2p10 join \"Ann's table\" --name Bob\n"
                 "  p2p10 join 192.168.1.20:41234 --name Bob --autoplay greedy"),
        formatter_class=HelpFormatter)
    # TRANSLATORS: the metavar of "p2p10 join": a table's name, or the host's address.
    join.add_argument("address", nargs="?", metavar=_("TABLE|HOST:PORT"),
                      help=_("a table's name as 'p2p10 tables' lists it, or where the host "
                             "listens (none: the open tables on the network; the only one is "
                             "joined, several are listed to choose from)"))
    join.add_argument("--timeout", type=float, default=10.0, metavar="S",
                      help=_("how long to look for a table on the network (up to 10 s)"))
    join.add_argument("--name",
                      help=_("your name at the table (your login name; the host numbers a name "
                             "already taken)"))
    _code(join)
    join.add_argument("--port", type=int, default=0, metavar="P",
                      help=_("port to listen on for the other players (any free one): fix it to "
                             "forward it, with --reachable-at"))
    _common(join)
    join.set_defaults(func=run_later("cli.lan_cmds", "cmd_join"))

    watch = sub.add_parser(
        "watch", help=_("watch a game on the LAN without a seat"),
        description=_("Follow a table as a spectator, from before the start or mid-game: every "
                      "entry is checked as it arrives, exactly as a player's machine checks it, "
                      "and a violation is shown at once with the seat it blames. You see what is "
                      "public: hidden cards only at each hand's reveal. On a terminal the table "
                      "is shown live (with --web, in a browser); otherwise one line at the end "
                      "says the verdict. The log is saved as the game goes."),
        epilog=_("examples:\n  p2p10 watch\n  p2p10 watch \"Ann's table\"\n"
                 "  p2p10 watch 192.168.1.20:41234 --code 7-orbit-tulip --save ./games\n"
                 "  p2p10 watch --web --listen 0.0.0.0:8080"),
        formatter_class=HelpFormatter)
    watch.add_argument("address", nargs="?", metavar=_("TABLE|HOST:PORT"),
                       help=_("a table's name as 'p2p10 tables' lists it, or where the host "
                              "listens (none: the only table on the network)"))
    watch.add_argument("--name", help=_("the name the players see you watch as (your login name)"))
    _code(watch)
    watch.add_argument("--timeout", type=float, default=10.0, metavar="S",
                       help=_("how long to look for a table on the network (up to 10 s)"))
    watch.add_argument("--interface", metavar=_("ADDR"),
                       help=_("look for tables on this address only (all)"))
    watch.add_argument("--save", type=Path, metavar=_("DIR"),
                       # TRANSLATORS: DIR is the option's metavar: translate it as there.
                       help=_("save the log in DIR (default: the data directory)"))
    watch.add_argument("--ascii", action="store_true", help=_("draw the table with ASCII only"))
    watch.add_argument("--also", metavar="HOST:PORT",
                       help=_("watch a second seat's machine too (a player's HOST:PORT) and check "
                              "that it holds the history the host shows: a host that seated "
                              "keys of its own, or forked the log, is caught"))
    watch.add_argument("--web", action="store_true",
                       help=_("show the table in a browser, full-screen for a room's big screen, "
                              "instead of the terminal (the page's address is the first line of "
                              "output)"))
    watch.add_argument("--listen", metavar="ADDR:PORT",
                       help=_("with --web: serve the page on this address, so that other machines "
                              "may open it, read-only (default: this machine only, 127.0.0.1 on a "
                              "free port); the address's key is still needed"))
    watch.add_argument("--no-browser", action="store_true",
                       help=_("with --web: only print the page's address, do not open a browser"))
    watch.set_defaults(func=run_later("cli.watch_cmd", "cmd_watch"))

    tables = sub.add_parser(
        "tables", help=_("list the tables open on the network"),
        description=_("Listen for tables announced on the network (Zeroconf) and list them. An "
                      "announcement is a hint, never trusted: what you sit down at is checked "
                      "when you join."))
    tables.add_argument("--timeout", type=float, default=3.0, metavar="S",
                        help=_("how long to listen (3 s)"))
    # TRANSLATORS: the metavar of --interface, a network address.
    tables.add_argument("--interface", metavar=_("ADDR"),
                        help=_("listen on this address only (all)"))
    tables.add_argument("--json", action="store_true", help=_("print one JSON object"))
    tables.add_argument("--at", metavar="HOST:PORT",
                        help=_("ask the host at HOST:PORT directly, for a table on another network "
                               "(a VPN, a forwarded port) that no announcement reaches"))
    tables.set_defaults(func=run_later("cli.finding", "cmd_tables"))

    resume = sub.add_parser(
        "resume", help=_("go back to a LAN game this machine left mid-way"),
        description=_("Start a seat again from its saved files (the log, the secrets and the "
                      "roster beside it) after the program was killed or the machine went down: "
                      "it finds the other peers again, fetches what it missed, checks it, and "
                      "plays on. With no FILE, the unfinished LAN game in the data folder "
                      "($XDG_DATA_HOME/p2p10/games), or the one you pick if there are several. A "
                      "game against bots goes on with 'p2p10 play --resume'."),
        epilog=_("examples: p2p10 resume\n"
                 "          p2p10 resume "
                 "~/.local/share/p2p10/games/20261129-2054-a1b64915-seat2.p2p10 "
                 "--autoplay greedy"),
        formatter_class=HelpFormatter)
    # TRANSLATORS: the metavar of a file argument.
    resume.add_argument("file", type=Path, nargs="?", metavar=_("FILE"),
                        help=_("the seat's .p2p10 game log (the unfinished LAN game, if there is "
                               "one)"))
    resume.add_argument("--interface", metavar=_("ADDR"),
                        help=_("the address to listen on (the one the seat had)"))
    resume.add_argument("--level", default="normal", choices=list(POLICIES),
                        help=_("how well the bots this machine runs play (normal)"))
    _playing(resume)
    resume.set_defaults(func=run_later("cli.lan_cmds", "cmd_resume"))


def _code(parser: argparse.ArgumentParser) -> None:
    """A private table's code: ``join`` and ``watch``."""
    # TRANSLATORS: the metavar of --code, a private table's code.
    parser.add_argument("--code", metavar=_("CODE"),
                        help=_("a private table's code, as its host shows it (like 7-orbit-tulip; "
                               "asked for on a terminal when the table needs one)"))


def _playing(parser: argparse.ArgumentParser) -> None:
    """How this seat is played: ``host``, ``join`` and ``resume``."""
    # TRANSLATORS: the metavar of --autoplay, a bot policy's name (greedy, hard, ...).
    parser.add_argument("--autoplay", metavar=_("POLICY"),
                        help=_("let a bot play this seat with no terminal ({policies})").format(
                            policies=", ".join(POLICIES)))
    parser.add_argument("--ascii", action="store_true", help=_("draw the table with ASCII only"))
    add_web_options(parser)
    add_think_option(parser)
    parser.add_argument("--away-after", type=float, metavar="S", default=AWAY_AFTER,
                        # TRANSLATORS: S is the option's value, a number of seconds.
                        help=_("count a machine as away once no link to it has been up for S "
                               "seconds (default {seconds}); a player who is connected and "
                               "thinking is never away").format(seconds=f"{AWAY_AFTER:.0f}"))
    parser.add_argument("--alone-after", type=float, metavar="S", default=ALONE_AFTER,
                        # TRANSLATORS: S is the option's value, a number of seconds.
                        help=_("once the game has started, stop waiting when no other machine "
                               "has answered for S seconds (default {seconds}; 0 waits for "
                               "ever): the log is kept for p2p10 resume, and the command exits "
                               "3").format(seconds=f"{ALONE_AFTER:.0f}"))
    parser.add_argument("--think", type=float, metavar="S", default=0.0,
                        # TRANSLATORS: S is the option's value, a number of seconds.
                        help=_("with --autoplay: the bot takes S seconds over each move (to watch "
                               "it play, or to try the table's patience)"))
    parser.add_argument("--go-on-after", type=float, metavar="S",
                        # TRANSLATORS: S is the option's value, a number of seconds.
                        help=_("once a machine has been away S seconds, agree to go on without "
                               "it (a bot takes its seats until it comes back; default: ask on "
                               "screen)"))


def _common(parser: argparse.ArgumentParser) -> None:
    """What ``host`` and ``join`` share: how the seat is played, where it listens and saves."""
    _playing(parser)
    parser.add_argument("--interface", default="0.0.0.0", metavar=_("ADDR"),
                        help=_("the address to listen on and to give the other peers (all "
                               "interfaces)"))
    # TRANSLATORS: the metavar of --save, a directory.
    parser.add_argument("--save", type=Path, metavar=_("DIR"),
                        # TRANSLATORS: DIR is the option's metavar: translate it as there.
                        help=_("save the log and secrets in DIR (default: the data directory)"))
    parser.add_argument("--reachable-at", metavar=_("HOST:PORT"),
                        help=_("the address the other peers dial to reach this one, when it is "
                               "not where it listens (a forwarded port, a proxy)"))
