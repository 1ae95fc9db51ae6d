"""The options of ``p2p10 simulate``, ``p2p10 audit`` and ``p2p10 replay``.

Their code is in :mod:`cli.simulate_cmd`, :mod:`cli.audit_cmd` and :mod:`cli.replay_cmd`, each
imported only when its command runs: a saved log is checked with the dealing cryptography (rbcl,
Ed25519), a tenth of a second or more of start-up that ``--help`` and the other commands should
not pay, and ``simulate`` needs it only with ``--crypto``."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from cli import HelpFormatter, run_later
from p2p10.bots import POLICIES
from p2p10.i18n import _


def add_parsers(sub: Any, rule_options: argparse.ArgumentParser) -> None:
    """Register ``simulate``, ``audit`` and ``replay``."""
    sim = sub.add_parser(
        "simulate", parents=[rule_options], help=_("play games between bots: a tournament"),
        description=_("Play complete games between bot policies and report, per policy, wins, "
                      "win rate with its 95 percent confidence interval, mean hands per game and mean "
                      "final score. Seats rotate from game to game. With --crypto every seat is a "
                      "separate peer with its own keys, and the cards are dealt with the full "
                      "mental-poker protocol through an in-process network, exactly as on a LAN."),
        epilog=_("examples: p2p10 simulate --policies hard,greedy --players 2 --games 2000 "
                 "--jobs 2\n"
                 "          p2p10 simulate --players 4 --games 1 --crypto --save games/"),
        formatter_class=HelpFormatter)
    sim.add_argument("--players", type=int, default=4, metavar="K",
                     help=_("seats at the table, 2-6 (4)"))
    sim.add_argument("--games", type=int, default=1, metavar="N", help=_("games to play (1)"))
    sim.add_argument("--policies", default="greedy", metavar="A,B",
                     help=_("bot policies for the seats, repeated to fill the table "
                            "({policies}; default greedy)").format(policies=", ".join(POLICIES)))
    sim.add_argument("--crypto", action="store_true",
                     help=_("deal with the full protocol, peer by peer"))
    # TRANSLATORS: the metavar of --save, a directory.
    sim.add_argument("--save", type=Path, metavar=_("DIR"),
                     # TRANSLATORS: DIR is the option's metavar: translate it as there.
                     help=_("save each game's log in DIR (needs --crypto)"))
    sim.add_argument("--seed", type=int, metavar="S",
                     help=_("make the games reproducible (test randomness: never for real play)"))
    # TRANSLATORS: J is the option's value, a number of processes.
    sim.add_argument("--jobs", type=int, default=1, metavar="J", help=_("play on J processes (1)"))
    sim.add_argument("--json", action="store_true", help=_("print one JSON object"))
    sim.add_argument("--verbose", action="store_true",
                     help=_("a line per game (and every game in --json)"))
    sim.set_defaults(func=run_later("cli.simulate_cmd", "cmd_simulate"))

    audit = sub.add_parser(
        "audit", help=_("check a saved game from its first entry to its last"),
        description=_("Check every signature, the hash chain, who wrote each entry, every "
                      "shuffle (against its revealed seed, or through its proof of shuffle where "
                      "the seed never came), every token and proof, every move against the "
                      "rules, and every hand and score, and name every time the table went on "
                      "without a machine (who, at which entry, agreed by whom). Exit status: 0 a "
                      "complete game in which every step was checked and passed; 1 a violation "
                      "(with the seat, the entry and the reason), a damaged file (cut short, or "
                      "bytes that are not an entry) or an unfinished log; 2 not a game log."))
    # TRANSLATORS: the metavar of a file argument.
    audit.add_argument("file", type=Path, metavar=_("FILE"), help=_("a .p2p10 game log"))
    audit.add_argument("--json", action="store_true", help=_("print one JSON object"))
    audit.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="J",
                       # TRANSLATORS: J is the option's value, a number of processes.
                       help=_("check on J processes: each hand's checks in J - 1 helpers while "
                              "this one reads on (the number of cores)"))
    audit.set_defaults(func=run_later("cli.audit_cmd", "cmd_audit"))

    replay = sub.add_parser(
        "replay", help=_("a game's transcript, hand by hand and turn by turn"),
        # TRANSLATORS: SEAT is the metavar of --as: translate it as there.
        description=_("Step through a saved game at the table, move by move and hand by hand "
                      "(on a terminal), or print it as a transcript (--text, or into a pipe). "
                      "--as SEAT shows that seat's own cards as it saw them; without it, a "
                      "spectator's view: hidden cards appear only at each hand's end-of-hand "
                      "reveal."))
    replay.add_argument("file", type=Path, metavar=_("FILE"), help=_("a .p2p10 game log"))
    replay.add_argument("--hand", type=int, metavar="N",
                        help=_("only hand N (1 is the first); on a terminal, start at hand N"))
    # TRANSLATORS: the metavar of --as, a seat's number.
    replay.add_argument("--as", dest="seat", type=int, metavar=_("SEAT"),
                        # TRANSLATORS: SEAT is the option's metavar: translate it as there.
                        help=_("see the game as seat SEAT (1-6)"))
    replay.add_argument("--text", action="store_true",
                        help=_("print the transcript, even on a terminal"))
    replay.add_argument("--ascii", action="store_true",
                        help=_("on a terminal: no box-drawing characters"))
    replay.set_defaults(func=run_later("cli.replay_cmd", "cmd_replay"))
