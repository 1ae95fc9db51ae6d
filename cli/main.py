"""The ``p2p10`` command."""

from __future__ import annotations

import argparse
import io
import logging
import logging.handlers
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from cli import lan_parsers, log_parsers, play_cmd, rules_cmd, stats_cmd
from p2p10 import __version__
from p2p10.bots import use_think_budget
from p2p10.errors import P2P10Error
from p2p10.i18n import LANGUAGES, _, choose_language, set_language
from p2p10.rules import RuleSet
from protocol import data_home


def _rule_options_parser() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group(_("rule options (see 'p2p10 rules options')"))
    group.add_argument("-o", "--option", dest="options", action="append", default=[],
                       metavar=_("OPT"),
                       help=_("a rule option such as skip=next, natural=phase, phases=even, "
                              "goal=5; repeat it or separate with commas"))
    return parent


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``p2p10`` command."""
    parser = argparse.ArgumentParser(
        prog="p2p10", allow_abbrev=False,  # --lang is read before the parser is built: no --la
        description=_("Phase 10 on a LAN with no server and no trusted dealer."))
    parser.add_argument("--version", action="version", version=f"p2p10 {__version__}",
                        help=_("show program's version number and exit"))
    parser.add_argument("--lang", choices=LANGUAGES,
                        help=_("the language to speak (default: the one LANGUAGE, LC_ALL, "
                               "LC_MESSAGES or LANG names, else en)"))
    sub = parser.add_subparsers(dest="command", metavar=_("COMMAND"))
    sub.required = True
    play_cmd.add_parser(sub, _rule_options_parser())
    rules_cmd.add_parser(sub, _rule_options_parser())
    log_parsers.add_parsers(sub, _rule_options_parser())
    lan_parsers.add_parsers(sub, _rule_options_parser())
    stats_cmd.add_parser(sub)
    return parser


LOG_BYTES = 1_000_000  # the program's log is kept to about this size (and one older file)


class _ProgramLog(logging.handlers.RotatingFileHandler):
    """The program's log file, made (with its folder) only when there is a line to write, and
    readable by its owner only: it names the addresses of the machines this one played with."""

    def _open(self) -> io.TextIOWrapper:
        path = Path(self.baseFilename)
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        return open(descriptor, "a", encoding=self.encoding, errors=self.errors)


def log_to_file() -> Path:
    """Send the program's own log lines (the ``p2p10`` loggers: a broken link, a spectator
    gone, a link closed for not reading) to ``$XDG_DATA_HOME/p2p10/p2p10.log``, never to the
    terminal, where the table is drawn; the file's path."""
    path = data_home() / "p2p10.log"
    logger = logging.getLogger("p2p10")
    for handler in list(logger.handlers):
        if isinstance(handler, _ProgramLog):
            if handler.baseFilename == str(path.absolute()):
                return path
            logger.removeHandler(handler)
            handler.close()
    handler = _ProgramLog(path, maxBytes=LOG_BYTES, backupCount=1, encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 1 a failed check, 2 bad input)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        # Before the parser is built, so that its help speaks the language too; the environment's
        # first, so that a wrong --lang is told in it.
        set_language(choose_language(os.environ))
        set_language(choose_language(os.environ, _lang_option(argv)))
    except P2P10Error as err:
        print(f"p2p10: {err}", file=sys.stderr)
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    # asyncio warns on standard error about other machines' broken connections ("socket.send()
    # raised exception.", once per write to a link that was reset): noise a remote machine can
    # make at will, which would garble the table on the screen. Errors are still shown.
    logging.getLogger("asyncio").setLevel(logging.ERROR)
    log_to_file()
    try:
        if hasattr(args, "options"):
            args.rules = RuleSet.parse(
                [o for opt in args.options for o in opt.split(",") if o.strip()])
        if getattr(args, "think_budget", None) is not None:
            use_think_budget(args.think_budget)
        status: int = args.func(args)
        return status
    except P2P10Error as err:
        print(f"p2p10: {err}", file=sys.stderr)
        # A refusal the user cannot fix by typing the command differently (a private table's
        # code refused) is a failure, 1; everything else here is bad input, 2.
        return int(getattr(err, "exit_status", 2))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def _lang_option(argv: Sequence[str]) -> str | None:
    """The value of ``--lang`` among the options before the command, if there is one."""
    lang = None
    words = iter(argv)
    for word in words:
        if word == "--lang":
            lang = next(words, None)
        elif word.startswith("--lang="):
            lang = word.partition("=")[2]
        elif word == "--" or not word.startswith("-"):
            break
    return lang


if __name__ == "__main__":
    raise SystemExit(main())
