"""The front end: the ``p2p10`` command and the terminal table."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

from p2p10.errors import P2P10Error
from p2p10.i18n import _


class UsageError(P2P10Error):
    """A command line that cannot be run as given."""


class HelpFormatter(argparse.HelpFormatter):
    """Help that wraps a one-paragraph description to the terminal, as argparse does, and keeps
    text written in lines (an epilog of examples) exactly as written. A translated description
    is one long line too, so it wraps in every language."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def _think_budget(text: str) -> int:
    try:
        worlds = int(text)
    except ValueError:
        worlds = -1
    if worlds < 0:
        raise argparse.ArgumentTypeError(
            _("--think-budget is a number of imagined deals, 0 or more, not {value!r}").format(value=text))
    return worlds


def add_think_option(parser: argparse.ArgumentParser) -> None:
    """``--think-budget N``: how far the ``hard`` bots on this machine look ahead."""
    from p2p10.bots import THINK_BUDGET

    # TRANSLATORS: N is the option's value, a number of imagined deals.
    parser.add_argument("--think-budget", type=_think_budget, metavar="N",
                        help=_("the hard bots play each close call out in N imagined deals of "
                               "the cards they cannot see (default {n}; 0: no look-ahead, the "
                               "fastest); more is slower and a little stronger").format(n=THINK_BUDGET))


def run_later(module: str, command: str) -> Callable[[argparse.Namespace], int]:
    """A subcommand's ``func`` that imports ``module`` only when the subcommand runs and calls
    its ``command``: the parsers stay light, and ``--help`` or another command does not pay
    for what this one imports (the LAN stack, the dealing cryptography)."""
    def run(args: argparse.Namespace) -> int:
        result: int = getattr(importlib.import_module(module), command)(args)
        return result

    return run


def add_web_options(parser: argparse.ArgumentParser) -> None:
    """``--web`` and ``--no-browser``: the table in the browser instead of the terminal."""
    parser.add_argument("--web", action="store_true",
                        help=_("draw the table in your browser instead of the terminal: the page is "
                               "served on 127.0.0.1 only, at an address with a one-time key that "
                               "the command prints on a line of its own (play: the first line; "
                               "host, join, resume: when the game starts)"))
    parser.add_argument("--no-browser", action="store_true",
                        help=_("with --web: only print the page's address, do not open a browser"))
