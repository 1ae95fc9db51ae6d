"""``p2p10 play``: a game against bots at the terminal table.

With no game option it opens the start screen (:mod:`cli.table.start`): a new game, an unfinished
one to continue, a recent one to replay, the player's record. Every choice there is also a flag:
``--bots --level --name -o`` start a new game at once, ``--resume [LOG]`` continues one.

The start screen opens with the settings of the last new game (:mod:`cli.game_settings`); a
flag changes one of them. Leaving a game or a replay opened from the start screen comes back to
it; one started by flags ends the command.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli import HelpFormatter, add_think_option, add_web_options
from p2p10.errors import P2P10Error
from p2p10.i18n import _, ngettext
from p2p10.names import company, shown_name

if TYPE_CHECKING:
    from cli.game_settings import NewGame
    from cli.seat.start import Continue, Listed, StartChoice
    from p2p10.engine import GameState
    from protocol.local import LocalTable, SavedGame

LEVELS = ("easy", "normal", "hard")
LATEST = "latest"  # --resume with no log named


class NoTerminal(P2P10Error):
    """The table needs a terminal to draw on and read keys from."""


def add_parser(sub: Any, rule_options: argparse.ArgumentParser) -> None:
    """Register ``play``."""
    play = sub.add_parser(
        "play", parents=[rule_options], help=_("play a game against bots (start here)"),
        description=_("Play Phase 10 against bots at a full-screen table. With no option it opens "
                      "the start screen: a new game, an unfinished game to continue, a recent game "
                      "to replay, and your record. Every seat is a separate peer with its own keys, "
                      "and the cards are dealt with the full mental-poker protocol, exactly as on a "
                      "LAN. The game is saved as it goes; at the end the command prints the winner, "
                      "the scores and where the log is, for 'p2p10 replay' and 'p2p10 audit'. "
                      "Press ? at the table for the keys. The start screen opens with the settings "
                      "of your last new game (kept in $XDG_CONFIG_HOME/p2p10/settings.json); a "
                      "flag changes one of them and starts at once. A game or a replay left from "
                      "the start screen comes back to it; one started by a flag ends the command."),
        epilog=_("examples: p2p10 play\n"
                 "          p2p10 play --bots 2 --level hard -o phases=even\n"
                 "          p2p10 play --resume\n"
                 "          p2p10 play --web"),
        formatter_class=HelpFormatter)
    play.add_argument("--bots", type=int, metavar="N",
                      help=_("bots at the table, 1-5 (as in your last game; 3 at first)"))
    play.add_argument("--name", help=_("your name at the table (as in your last game; your login "
                                       "name at first)"))
    play.add_argument("--level", choices=LEVELS,
                      help=_("how well the bots play (as in your last game; normal at first)"))
    play.add_argument("--resume", nargs="?", const=LATEST, metavar="LOG",
                      help=_("continue the most recent unfinished game, or the one saved in LOG"))
    play.add_argument("--seed", type=int, metavar="S",
                      help=_("make the game reproducible (test randomness: never for real play)"))
    play.add_argument("--ascii", action="store_true",
                      help=_("draw cards in text (R7 B12 W S), with no box-drawing characters"))
    play.add_argument("--pace", type=float, default=0.6, metavar="SECONDS",
                      help=_("how long each bot waits before its move (0.6; + and - change it "
                             "at the table)"))
    add_web_options(play)
    add_think_option(play)
    play.set_defaults(func=cmd_play)


def cmd_play(args: argparse.Namespace) -> int:
    """Play games at the terminal (the start screen's choices, or the flags'); after each, print
    the winner, the scores and where the log is saved."""
    if not args.web and not (sys.stdout.isatty() and sys.stdin.isatty()):
        raise NoTerminal(_("play needs a terminal: its input and output must not be a pipe or a "
                           "file (to watch bots play without one, try 'p2p10 simulate --crypto "
                           "--save DIR')"))
    if args.pace < 0:
        raise P2P10Error(_("--pace cannot be negative"))
    # Imported here: prompt_toolkit is a tenth of a second of start-up only the table needs.
    from cli import game_settings

    remembered, notice = game_settings.load()
    settings = _settings(args, remembered)
    choice: StartChoice | None = None
    if args.resume is not None:
        choice = _resume_choice(args.resume)
    elif (args.bots, args.name, args.level, args.seed) != (None,) * 4 or args.options:
        choice = settings
    if args.web:
        from cli.web.play_web import play_web

        if notice is not None:
            print(f"p2p10: {notice}", file=sys.stderr)
        return play_web(args, settings, choice)
    return _play_games(args, settings, choice, notice)


def _play_games(args: argparse.Namespace, settings: NewGame, choice: StartChoice | None,
                notice: str | None) -> int:
    """The terminal's games: ``choice`` (the flags'), or each the start screen offers until
    the player leaves it; a problem with the settings file (``notice``) said once."""
    from cli import game_settings
    from cli.game_settings import NewGame
    from cli.seat.start import Continue, Leave, Replay

    # A game or a replay left from the start screen comes back to it; one started by flags (or
    # --resume) ends the command: the screen was never asked for.
    from_screen = choice is None
    while True:
        if choice is None:
            choice, notice = _start_screen(settings, args.ascii, notice), None
        if notice is not None and isinstance(choice, NewGame):  # (the start screen shows it)
            print(f"p2p10: {notice}", file=sys.stderr)
        notice = None
        if isinstance(choice, Leave):
            return 0
        if not isinstance(choice, Replay | Continue):
            settings = choice
            unsaved = game_settings.save(choice)
            if unsaved is not None:
                print(f"p2p10: {unsaved}", file=sys.stderr)
        try:
            if isinstance(choice, Replay):
                _replay(choice.path, args.ascii)
                if not from_screen:
                    return 0
                choice = None
                continue
            local = _table(choice, args)
        except P2P10Error as err:
            if not from_screen:
                raise
            # A saved game that cannot be opened (damaged, or over): said on the start screen,
            # which opens again, rather than the end of the command.
            choice, notice = None, str(err)
            continue
        if _play(local, args.ascii):  # the game is over and the player asked for another
            choice = settings = _settings_of(local)
        elif from_screen:
            choice = None
        else:
            return 0


def _settings(args: argparse.Namespace, last: NewGame) -> NewGame:
    """The new game the flags describe, each setting not given as in ``last`` (the last new
    game's, :mod:`cli.game_settings`); checked as the start screen checks it."""
    from cli.game_settings import NewGame, valid_name
    from p2p10.table import MAX_NAME

    name = (args.name if args.name is not None else last.name).strip()
    if not valid_name(name):
        raise P2P10Error(_("--name takes 1 to {n} printable characters").format(n=MAX_NAME))
    bots = last.bots if args.bots is None else args.bots
    if not 1 <= bots <= 5:
        raise P2P10Error(_("--bots must be 1 to 5, not {n}").format(n=bots))
    options = tuple(args.rules.options()) if args.options else last.options
    return NewGame(name, bots, args.level or last.level, options)


def _resume_choice(named: str) -> StartChoice:
    from cli.seat.start import Continue
    from protocol.local import unfinished_games

    if named != LATEST:
        return Continue(Path(named))
    games = unfinished_games(limit=1)
    if not games:
        raise P2P10Error(_("there is no unfinished game to continue: start one with 'p2p10 play'"))
    return Continue(games[0].path)


def _start_screen(settings: NewGame, ascii_only: bool, notice: str | None = None) -> StartChoice:
    """Show the start screen, with the unfinished games, the recent ones and the record (and
    ``notice`` under the menu until the first key)."""
    from cli.table.start import choose

    looking = _("Looking for your saved games...")
    print(looking, end="\r", flush=True)
    unfinished, recent, lines = start_lists()
    # Wiped before the screen opens: the terminal shows the line again once the screen closes.
    print(" " * len(looking), end="\r", flush=True)
    return choose(settings, unfinished, recent, lines, ascii_only, notice=notice)


def start_lists() -> tuple[list[Listed], list[Listed], list[str]]:
    """What the start screen lists: the unfinished games, the recent finished ones (whose log is
    still there) and the record's lines (or why it cannot be read)."""
    from cli.seat.start import SHOWN, Listed
    from protocol import record_store
    from protocol.local import unfinished_games

    unfinished = [Listed(g.path, _unfinished_label(g)) for g in unfinished_games(limit=SHOWN)]
    try:
        record = record_store.load()
        lines = record.summary_lines()
        recent = [Listed(Path(g.log_path), g.describe()) for g in record.latest(SHOWN)
                  if Path(g.log_path).exists()]
    except P2P10Error as err:
        lines, recent = [str(err)], []
    return unfinished, recent, lines


def _unfinished_label(game: SavedGame) -> str:
    others = company(game.names[1:])
    when = game.when.strftime("%Y-%m-%d %H:%M")
    if game.phase is None:
        # TRANSLATORS: an unfinished game in the start screen's list: {when} is a date and time,
        # {others} the other players' names ("Bot 1, Bot 2").
        return _("{when}: against {others}, hand {hand}, you sit this hand out").format(
            when=when, others=others, hand=game.hand)
    # TRANSLATORS: an unfinished game in the start screen's list: {when} is a date and time,
    # {others} the other players' names ("Bot 1, Bot 2"), {phase} the phase the player is on.
    return _("{when}: against {others}, hand {hand}, you are on phase {phase}").format(
        when=when, others=others, hand=game.hand, phase=game.phase)


def _table(choice: NewGame | Continue, args: argparse.Namespace) -> LocalTable:
    """The table of a new game, or of an unfinished one restored from its files; it puts
    itself in the record as it ends (:func:`record_when_over`)."""
    # Imported here, when a game is to be played: asyncio and the table's peers, which load the
    # dealing cryptography, are start-up that the other commands should not pay for.
    from cli.seat.start import Continue
    from p2p10.rules import RuleSet
    from protocol.local import LocalTable

    if isinstance(choice, Continue):
        print(_("Opening the game saved in {path}...").format(path=choice.path), flush=True)
        local = LocalTable.resume(choice.path, pace=args.pace)
    else:
        local = LocalTable(choice.name, choice.bots, choice.level, RuleSet.parse(choice.options),
                           args.seed, pace=args.pace)
    record_when_over(local)
    return local


def record_when_over(local: LocalTable) -> None:
    """Add the game at ``local`` to the record the moment its log says it is over, not only
    when the user leaves it: a finished game left by a signal (Ctrl-C, the terminal closing),
    or whose process is killed once its last tab is closed, is in the record all the same.
    :func:`after_game` adds it again on the way out, which adds nothing (the record is kept by
    game id)."""
    recorded = False

    def entry() -> None:
        nonlocal recorded
        if recorded:
            return
        try:
            recorded = record_if_over(local)
        except (P2P10Error, OSError):
            # Called from the peer as it keeps an entry, which must not break on it: the
            # record is tried again when the game is left, and after_game says why it fails.
            recorded = True

    local.subscribe(entry)


def record_if_over(local: LocalTable) -> bool:
    """Add the game at ``local`` to the user's record if its log says it is over (it has a
    winner); True if it is. The user's own fold, every entry of it checked as it came, is not
    read again; a game already in the record stays there once. Raises :class:`P2P10Error` if
    the record cannot be written."""
    from protocol import record_store
    from protocol.local import USER

    table = local.table
    if table is None or table.engine.winner is None:
        return False
    record_store.add_finished_table(table, USER, local.log_path)
    return True


def _settings_of(local: LocalTable) -> NewGame:
    """A new game like the one at ``local`` (to play again after a resumed game too)."""
    from cli.game_settings import NewGame

    levels = [seat.policy for seat in local.seats if seat.policy is not None]
    return NewGame(local.names[0], len(levels), levels[0] if levels else "normal",
                   tuple(local.rules.options()))


def _play(local: LocalTable, ascii_only: bool) -> bool:
    """One game at the table; prints how it ended. True if the player asked for another."""
    import asyncio

    from cli.table.play import TableApp

    app = TableApp(local, ascii_only=ascii_only, tell_later=True)
    try:
        asyncio.run(app.run())
    finally:
        local.close()
    after_game(local)
    return app.again


def after_game(local: LocalTable) -> None:
    """How a game at ``local`` ended, printed: the winner and the scores (the record updated),
    or how to continue it; where its log is, and how to replay and audit it."""
    path = local.log_path
    state = local.view() if local.table is not None else None
    if state is not None and state.winner is not None:
        for line in result_lines(state):
            print(line)
        try:  # (most often there already: see record_when_over)
            record_if_over(local)
        except P2P10Error as err:
            _say(_("Your record was not updated: {reason}").format(reason=err))
        _say(_("The game is saved in:"))
    else:
        _say(_("You left the game before its end; 'p2p10 play --resume' continues it. "
               "It is saved in:"))
    print(f"  {path}")
    _say(_("To see it again move by move, and to check every shuffle, card and score:"))
    print(f"  p2p10 replay {path}")
    print(f"  p2p10 audit {path}")


def _say(text: str) -> None:
    """Print a sentence wrapped at words to the terminal's width (the terminal would break a
    word at its edge)."""
    import shutil
    import textwrap

    columns = max(shutil.get_terminal_size().columns - 1, 40)
    print(textwrap.fill(text, columns, subsequent_indent=" ", break_long_words=False, break_on_hyphens=False))


def result_lines(state: GameState) -> list[str]:
    """The end of a game for the terminal: who won, then each player's phases and points."""
    assert state.winner is not None
    names = [shown_name(name) for name in state.names]
    lines = [_("{name} won the game.").format(name=names[state.winner])]
    width = max(len(name) for name in names)
    for seat, name in enumerate(names):
        made = len(state.made[seat])
        phases = ngettext("{n} phase made", "{n} phases made", made).format(n=made)
        points = ngettext("{n} point", "{n} points", state.totals[seat]).format(n=state.totals[seat])
        lines.append(f"  {name.ljust(width)}  {phases}, {points}")
    return lines


def _replay(path: Path, ascii_only: bool) -> None:
    """Watch a saved game in the replay viewer, as 'p2p10 replay' does."""
    import asyncio

    from cli.log_files import read_log_file
    from cli.table.replay_view import ReplayApp

    records = read_log_file(path)
    asyncio.run(ReplayApp(records.items, None, ascii_only).run())
