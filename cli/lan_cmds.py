"""``p2p10 host``, ``p2p10 join``, ``p2p10 resume`` and ``p2p10 tables``: a table on the LAN, peer
to peer. A person plays in the same terminal table as ``p2p10 play`` (with table chat); with
``--autoplay`` a bot plays the seat with no terminal.

This module is the commands' code, which needs the LAN stack (aiohttp, zeroconf): it is imported
only when one of them runs. Their options are in :mod:`cli.lan_parsers`."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from cli import UsageError, finding
from cli.game_settings import login_name
from p2p10.bots import POLICIES
from p2p10.errors import P2P10Error
from p2p10.i18n import N_, _, ngettext, pgettext
from protocol.discovery import TableAd
from protocol.lan import Front, GameResult, LanError, LanSeat, Timing, parse_address
from protocol.lan_host import Host
from protocol.lan_join import Joiner, Resumer
from protocol.lobby_messages import WrongCode
from protocol.private import BadCode, new_code, parse_code
from protocol.storage import SeatFiles

if TYPE_CHECKING:
    from protocol.lan_saved import UnfinishedSeat


def _name(given: str | None, fallback: str) -> str:
    """The name given with ``--name``, or else the login name (``fallback`` when there is no
    usable one)."""
    return given if given is not None else login_name(fallback)


EXIT_ALONE = 3
"""The exit status of ``host``, ``join`` and ``resume`` when the game had started and no other
machine answered for ``--alone-after`` seconds (1 is a frozen table, 0 a game played out)."""


def _timing(args: argparse.Namespace) -> Timing:
    go_on_after: float | None = args.go_on_after
    if go_on_after is not None and not go_on_after > 0:
        raise UsageError(_("--go-on-after must be positive"))
    if not args.away_after > 0:
        raise UsageError(_("--away-after must be positive"))
    if not args.think >= 0:
        raise UsageError(_("--think must be 0 or more seconds"))
    if not args.alone_after >= 0:
        raise UsageError(_("--alone-after must be 0 or more seconds"))
    return Timing(args.away_after, go_on_after, args.think, args.alone_after or None)


def _reachable_at(args: argparse.Namespace) -> tuple[str, int] | None:
    if args.reachable_at is None:
        return None
    try:
        return parse_address(args.reachable_at, "--reachable-at")
    except LanError as err:
        raise UsageError(str(err)) from None


def _check_autoplay(args: argparse.Namespace) -> str | None:
    """The bot policy for the seat, or None for a person at this terminal."""
    if args.autoplay is None:
        if not args.web and not (sys.stdin.isatty() and sys.stdout.isatty()):
            # TRANSLATORS: POLICY is the metavar of --autoplay: translate it as there.
            raise UsageError(_("the table needs a terminal: run this in one, or let a bot play "
                               "the seat with --autoplay POLICY"))
        return None
    if args.autoplay not in POLICIES:
        raise UsageError(_("unknown policy {policy}; choose from {choices}").format(
            policy=repr(args.autoplay), choices=", ".join(POLICIES)))
    policy: str = args.autoplay
    return policy


def _front(policy: str | None, ascii_only: bool, args: argparse.Namespace | None = None) -> Front | None:
    """The play screen for a person (None when a bot plays the seat): the terminal's, or with
    ``--web`` the browser's."""
    if policy is not None:
        return None
    if args is not None and args.web:
        from cli.web.play_web import lan_web_front  # aiohttp's server loads only for a page

        return lan_web_front(getattr(args, "lang", None), not args.no_browser)

    async def front(seat: LanSeat) -> None:
        from cli.table.lan import LanTableApp  # prompt_toolkit loads only for a screen

        await LanTableApp(seat, ascii_only, tell_later=True).run()

    return front


def _finish(result: GameResult, played_by_hand: bool) -> int:
    """Say how the game ended; a game the user played to its end goes into their record (one
    a bot played for them with --autoplay is not theirs to count)."""
    print(result.summary(), flush=True)
    table = result.peer.table
    if played_by_hand and result.peer.finished and not result.peer.stopped and table is not None:
        from protocol import record_store

        try:  # the peer's own fold, every entry of it checked as it came: not read again
            record_store.add_finished_table(table, result.peer.seat, result.log_path)
        except P2P10Error as err:
            print(_("Your record was not updated: {reason}").format(reason=err))
    if result.peer.stopped:
        return 1
    return EXIT_ALONE if result.alone is not None and not result.peer.finished else 0


def cmd_host(args: argparse.Namespace) -> int:
    """Open a table, wait for it to fill (or for Enter), play seat 1 to the end."""
    policy = _check_autoplay(args)
    if not 0 <= args.port < 65536:
        raise UsageError(_("--port must be 0 to 65535, not {port}").format(port=args.port))
    try:
        # TRANSLATORS: the host's name at the table, when it gives none and has no login name
        # (at most 32 characters).
        name = _name(args.name, pgettext("default name", "Host"))
        host = Host(name, args.seats, args.rules, policy, args.interface, args.port,
                    args.save, title=args.table, advertised=not args.quiet_network,
                    reachable_at=_reachable_at(args), bots=args.bots, bot_level=args.level,
                    start_when_full=starts_when_full(args.start_when_full),
                    front=_front(policy, args.ascii, args), timing=_timing(args), spectators=args.spectators,
                    code=new_code() if args.private else None)
    except LanError as err:
        raise UsageError(str(err)) from None
    return _finish(asyncio.run(_host(host)), policy is None)


NO_TERMINAL = N_("standard input is not a terminal: the game starts when every seat is taken")
"""What the host says when there is no terminal to press Enter on, in English (shown through
``_()``)."""


def starts_when_full(asked: bool) -> bool:
    """Whether the table starts by itself once full: when asked (``--start-when-full``), and
    when there is no terminal to press Enter on (a script, ``</dev/null``, a pipe), which is
    said once. Decided before the lobby is built, which takes it at construction."""
    if asked:
        return True
    if sys.stdin is not None and sys.stdin.isatty():
        return False
    print(_(NO_TERMINAL), flush=True)
    return True


async def _host(host: Host) -> GameResult:
    """Run the table; unless it starts when full, Enter on the terminal starts it. On a
    private table, ``n`` and Enter gives the table a new code while its lobby is open."""
    private = host.gate.private and sys.stdin is not None and sys.stdin.isatty()
    if host.start_when_full and not private:
        return await host.run()
    loop = asyncio.get_running_loop()

    def line() -> None:
        typed = sys.stdin.readline()
        if not typed:  # end of input: no more Enters to come
            loop.remove_reader(sys.stdin)
            return
        try:
            if private and typed.strip().lower() == NEW_CODE_KEY:
                host.new_code()
                return
        except LanError as err:
            print("p2p10: " + str(err), file=sys.stderr, flush=True)
            return
        if host.start_when_full:
            return
        try:
            host.start()
        except LanError as err:
            print("p2p10: " + _("cannot start: {reason}").format(reason=err), file=sys.stderr,
                  flush=True)

    if not host.start_when_full:
        print(_("press Enter to start with the players seated so far"), flush=True)
    if private:
        # TRANSLATORS: {key} is the letter to type, "n"; it stays the same in every language.
        print(_("type {key} and Enter for a new code (if strangers try to guess this one)").format(
            key=NEW_CODE_KEY), flush=True)
    loop.add_reader(sys.stdin, line)
    try:
        return await host.run()
    finally:
        loop.remove_reader(sys.stdin)


NEW_CODE_KEY = "n"
"""What the host of a private table types (then Enter) for a new code."""


def cmd_join(args: argparse.Namespace) -> int:
    """Sit down at a table and play that seat to the end."""
    policy = _check_autoplay(args)
    if args.timeout <= 0:
        raise UsageError(_("--timeout must be positive"))
    if not 0 <= args.port < 65536:
        raise UsageError(_("--port must be 0 to 65535, not {port}").format(port=args.port))
    address = args.address
    found: TableAd | None = None
    if address is None:
        looking = _("looking for tables on the network (up to {seconds} s)...").format(
            seconds=f"{args.timeout:g}")
        heard = asyncio.run(finding.listen(args.interface, args.timeout, looking, finding.is_open))
        found = finding.choose_table(*heard)
    elif not finding.looks_like_address(address):
        found = asyncio.run(finding.find_table(address, args.interface, args.timeout))
    if found is not None:
        address = f"{found.address[0]}:{found.address[1]}"
    # TRANSLATORS: a player's name at the table, when they give none and have no login name
    # (at most 32 characters).
    name = _name(args.name, pgettext("default name", "Guest"))
    code = given_code(args.code, found)

    def joining(code: str | None) -> Joiner:
        return Joiner(address, name, policy, args.interface, args.save,
                      reachable_at=_reachable_at(args), front=_front(policy, args.ascii, args),
                      timing=_timing(args),
                      host_fingerprint=found.fingerprint if found is not None else None, code=code,
                      listen_port=args.port)

    return _finish(with_code(code, lambda code: joining(code).run()), policy is None)


def given_code(typed: str | None, found: TableAd | None) -> str | None:
    """The private table's code: as given with ``--code``, or asked for on a terminal when the
    table was announced as private; None for an open table. :class:`UsageError` for text that
    is not a code, or for a private table with no code and no terminal to ask on."""
    if typed is None and found is not None and found.private:
        typed = ask_code()
    if typed is None:
        return None
    try:
        return parse_code(typed)
    except BadCode as err:
        raise UsageError(str(err)) from None


def ask_code() -> str:
    """A private table's code, typed by the player; :class:`UsageError` without a terminal."""
    if not sys.stdin.isatty():
        raise UsageError(_("this table is private: give its code with --code CODE"))
    try:
        return input(_("this table is private; its code (from the host): ")).strip()
    except EOFError:
        raise UsageError(_("no code given")) from None


T = TypeVar("T")


def with_code(code: str | None, run: Callable[[str | None], Coroutine[Any, Any, T]]) -> T:
    """``run`` with ``code``; if the host says the table needs a code that was not given, ask
    for it on a terminal and run again. A code refused ends the command: it prints why and
    exits 1 (:class:`CodeRefused`)."""
    try:
        return asyncio.run(run(code))
    except WrongCode as err:
        if not (err.needed and code is None and sys.stdin.isatty()):
            raise CodeRefused(str(err)) from None
    try:
        return asyncio.run(run(given_code(ask_code(), None)))
    except WrongCode as err:
        raise CodeRefused(str(err)) from None


class CodeRefused(P2P10Error):
    """A private table refused the code (or needed one): the command exits 1."""

    exit_status = 1


def cmd_resume(args: argparse.Namespace) -> int:
    """Start a seat again from its files (the most recent unfinished LAN game's, or the one
    the player picks, when no file is named) and play it to the end."""
    policy = _check_autoplay(args)
    path = args.file if args.file is not None else _unfinished_lan_game()
    if SeatFiles(path).local.exists():
        # TRANSLATORS: 'p2p10 play --resume' is a command: keep it.
        raise UsageError(_("{path} is a game against bots, not a LAN game: it goes on with\n"
                           "  p2p10 play --resume {path}").format(path=path))
    resumer = Resumer(path, policy, args.interface, front=_front(policy, args.ascii, args),
                      bot_level=args.level, timing=_timing(args))
    return _finish(asyncio.run(resumer.run()), policy is None)


def _unfinished_lan_game() -> Path:
    """The log of the only unfinished LAN game in the data folder, or of the one the player
    picks from a numbered list (the most recent first); a :class:`UsageError` that says where
    it looked, and where a game against bots goes on, when there is none."""
    from protocol import record_store
    from protocol.lan_saved import unfinished_lan_seats
    from protocol.local import data_dir, unfinished_games

    try:  # a game in the record has ended: its log need not be folded to know it
        ended = [Path(game.log_path) for game in record_store.load().games]
    except P2P10Error:
        ended = []
    seats = unfinished_lan_seats(ended=ended)
    if not seats:
        message = _("there is no unfinished LAN game in {folder}: name the seat's log, "
                    "p2p10 resume FILE").format(folder=data_dir())
        if unfinished_games(limit=1):
            # TRANSLATORS: follows "there is no unfinished LAN game in FOLDER: ..."; keep the
            # command.
            message += "\n" + _("(your unfinished game against bots goes on with 'p2p10 play --resume')")
        raise UsageError(message)
    if len(seats) == 1:
        chosen = seats[0]
    else:
        print(ngettext("{n} unfinished LAN game, the most recent first:",
                       "{n} unfinished LAN games, the most recent first:", len(seats)).format(n=len(seats)))
        for number, seat in enumerate(seats, 1):
            print(f"  {number}. {_lan_game(seat)}\n       p2p10 resume {seat.path}")
        if not sys.stdin.isatty():
            raise UsageError(_("several unfinished LAN games: name one, p2p10 resume FILE"))
        chosen = seats[_pick(len(seats)) - 1]
    print(_("resuming {game}").format(game=_lan_game(chosen)), flush=True)
    print(f"  {chosen.path}", flush=True)
    return chosen.path


def _pick(count: int) -> int:
    """The number (1 to ``count``) the player types; Enter is 1."""
    while True:
        try:
            # TRANSLATORS: {n} is always 2 or more.
            answer = input(_("resume which game (1-{n}, Enter for 1)? ").format(n=count)).strip()
        except EOFError:
            raise UsageError(_("no game chosen")) from None
        if not answer:
            return 1
        if answer.isdigit() and 1 <= int(answer) <= count:
            return int(answer)


def _lan_game(seat: UnfinishedSeat) -> str:
    # TRANSLATORS: an unfinished LAN game: {when} is a date and time, {names} every player's
    # name ("Ann, Bob, Cy"), {name} and {seat} the player's own.
    return _("{when}: {names}; hand {hand}; you are {name}, seat {seat}").format(
        when=seat.when.strftime("%Y-%m-%d %H:%M"), names=", ".join(seat.names), hand=seat.hand,
        name=seat.names[seat.seat], seat=seat.seat + 1)


