"""The ``p2p10`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cli import lan_parsers, log_parsers, play_cmd, rules_cmd
from p2p10 import __version__
from p2p10.errors import P2P10Error
from p2p10.rules import RuleSet


def _rule_options_parser() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("rule options (see 'p2p10 rules options')")
    group.add_argument("-o", "--option", dest="options", action="append", default=[],
                       metavar="OPT",
                       help="a rule option such as skip=next, natural=phase, phases=even, "
                            "goal=5; repeat it or separate with commas")
    return parent


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``p2p10`` command."""
    parser = argparse.ArgumentParser(
        prog="p2p10",
        description="Phase 10 on a LAN with no server and no trusted dealer.")
    parser.add_argument("--version", action="version", version=f"p2p10 {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    play_cmd.add_parser(sub, _rule_options_parser())
    rules_cmd.add_parser(sub, _rule_options_parser())
    log_parsers.add_parsers(sub, _rule_options_parser())
    lan_parsers.add_parsers(sub, _rule_options_parser())
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 1 a failed check, 2 bad input, 3 an
    audit of a complete game with no violation but with steps nobody could check)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if hasattr(args, "options"):
            args.rules = RuleSet.parse(
                [o for opt in args.options for o in opt.split(",") if o.strip()])
        status: int = args.func(args)
        return status
    except P2P10Error as err:
        print(f"p2p10: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
