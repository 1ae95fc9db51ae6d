"""The options of ``p2p10 simulate``, ``p2p10 audit``, ``p2p10 replay`` and ``p2p10 export``.

Their code is in :mod:`cli.simulate_cmd`, :mod:`cli.audit_cmd`, :mod:`cli.replay_cmd` and
:mod:`cli.export_cmd`, each imported only when its command runs: a saved log is checked with
the dealing cryptography (rbcl, Ed25519), a tenth of a second or more of start-up that
``--help`` and the other commands should not pay, and ``simulate`` needs it only with
``--crypto``."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from cli import HelpFormatter, add_think_option, run_later
from p2p10.bots import POLICIES
from p2p10.i18n import _


def add_parsers(sub: Any, rule_options: argparse.ArgumentParser) -> None:
    """Register ``simulate``, ``audit``, ``replay`` and ``export``."""
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
    add_think_option(sim)
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
                       help=_("check on J processes: each hand's proofs are shared by J helpers while "
                              "this one reads on (the number of cores)"))
    audit.add_argument("--by-reveals", action="store_true",
                       help=_("faster: settle each revealed shuffle and token by its seed or "
                              "secret and do not check their proofs (a false proof of a right "
                              "shuffle then passes; the verdict says CLEAN BY REVEALS)"))
    audit.set_defaults(func=run_later("cli.audit_cmd", "cmd_audit"))

    replay = sub.add_parser(
        "replay", help=_("a game's transcript, hand by hand and turn by turn"),
        # TRANSLATORS: SEAT is the metavar of --as: translate it as there.
        description=_("Step through a saved game at the table, move by move and hand by hand "
                      "(on a terminal), print it as a transcript (--text, or into a pipe), or "
                      "write it as one web page to open in a browser (--html -o FILE.html). "
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
    replay.add_argument("--html", action="store_true",
                        help=_("write the game as one self-contained web page (needs -o): it opens "
                               "in any browser with no network, steps through the game as every "
                               "seat saw it, and shows the score sheet, a chart of the scores and "
                               "the audit's verdict"))
    # TRANSLATORS: the metavar of replay's -o/--output, a file to write.
    replay.add_argument("-o", "--output", type=Path, metavar=_("FILE.html"),
                        # TRANSLATORS: FILE.html is the option's metavar: translate it as there.
                        help=_("with --html: the file to write, FILE.html"))
    replay.set_defaults(func=run_later("cli.replay_cmd", "cmd_replay"))

    export = sub.add_parser(
        "export", help=_("a checked game as one JSON object, for other tools"),
        description=_("Audit a saved game as 'p2p10 audit' does and, if it is clean, write it as "
                      "one JSON object: the table, the players and their keys, the rules, every "
                      "hand (each seat's dealt cards and the first discard as the end-of-hand "
                      "reveal shows them, every move in order with its cards, who went out, the "
                      "points and the phases made), every time the table went on without a "
                      "machine, and the totals and the winner. The format is specified in "
                      "specs/EXPORT.md and specs/export.schema.json. A log that does not audit "
                      "clean is refused and nothing is written. Exit status: 0 written; 1 the "
                      "log is not clean (a violation, a damaged file or an unfinished game: the "
                      "audit's verdict is on standard error); 2 not a game log, or the output "
                      "cannot be written."),
        epilog=_("examples: p2p10 export --json games/game-0001.p2p10 > game.json\n"
                 "          p2p10 export --json --indent 2 -o game.json games/game-0001.p2p10"),
        formatter_class=HelpFormatter)
    export.add_argument("file", type=Path, metavar=_("FILE"), help=_("a .p2p10 game log"))
    export.add_argument("--json", action="store_true", required=True,
                        help=_("write JSON; required, as JSON is the only format for now (another "
                               "may come, chosen by its own option)"))
    # TRANSLATORS: the metavar of --output, a file.
    export.add_argument("-o", "--output", type=Path, metavar=_("PATH"),
                        # TRANSLATORS: PATH is the option's metavar: translate it as there.
                        help=_("write to PATH, whole or not at all, instead of the standard "
                               "output (- is the standard output)"))
    export.add_argument("--indent", type=int, metavar="N",
                        help=_("indent the JSON by N spaces a level (default: one line)"))
    export.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="J",
                        # TRANSLATORS: J is the option's value, a number of processes.
                        help=_("audit on J processes, as 'p2p10 audit --jobs' (the number of cores)"))
    export.set_defaults(func=run_later("cli.export_cmd", "cmd_export"))
