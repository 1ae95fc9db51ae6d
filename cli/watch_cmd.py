"""``p2p10 watch``: follow a LAN table without a seat, checking every entry as it comes
(:mod:`protocol.watch`). On a terminal the table is drawn live, as the replay viewer draws a
saved game; otherwise a line for whatever goes wrong as it happens, and one at the end with the
verdict and where the log is. Leaving before the end (q on the screen, Ctrl-C) stops at once
with the same line on what came. Exit status 0 for a whole game that audits clean (or a watch
left early with nothing wrong seen), 1 otherwise."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import signal
import sys
from pathlib import Path

from cli import UsageError, finding
from cli.lan_cmds import _name, given_code, with_code
from p2p10.audit import Damage, LiveAudit, one_history
from p2p10.errors import ProtocolViolation
from p2p10.i18n import _, explicit_language, ngettext, pgettext
from protocol.discovery import TableAd
from protocol.lan import LanError, parse_address
from protocol.local import data_dir
from protocol.watch import WatchEvents, WatchResult, watch

ALSO_WAIT = 30.0  # s: how long the second seat's feed (--also) may take to end after the host's


def _say(line: str) -> None:
    print(line, flush=True)


def failure_line(failure: ProtocolViolation | Damage) -> str:
    """A failure seen while watching, as the audit words it (a documented verdict token)."""
    if isinstance(failure, Damage):
        return f"DAMAGED: {failure.reason}"
    return f"VIOLATION: {failure}"


async def _watch_plain(address: tuple[str, int], name: str, save: Path, announced: str | None,
                       code: str | None, leave: asyncio.Event) -> WatchResult:
    """No terminal: say what happens, line by line."""
    events = WatchEvents(failure=lambda failure: _say(failure_line(failure)), note=_say)
    return await watch(address, name, save_dir=save, events=events, announced=announced, code=code,
                       leave=leave)


def _leave_on_interrupt(leave: asyncio.Event) -> None:
    """Ctrl-C (SIGINT) leaves as ``q`` does: the watch stops and says where its log is."""
    with contextlib.suppress(NotImplementedError, RuntimeError):  # (no signals: Windows)
        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, leave.set)


async def _watch_screen(address: tuple[str, int], name: str, save: Path, announced: str | None,
                        code: str | None, ascii_only: bool, leave: asyncio.Event) -> WatchResult:
    """A terminal: the live table, which stays up after the game until the user leaves; a
    user who leaves (q) before the end stops the watch."""
    from cli.table.watch_view import WatchApp  # prompt_toolkit loads only for a screen

    screen: list[WatchApp] = []
    shown: list[asyncio.Future[None]] = []
    waiting: list[str] = []

    def entry(audit: LiveAudit) -> None:
        if not screen:
            screen.append(WatchApp(audit.records, ascii_only))
            shown.append(asyncio.ensure_future(screen[0].run()))
            shown[0].add_done_callback(lambda _shown: leave.set())
            for line in waiting:
                screen[0].say(line)
        elif audit.table is not None:
            screen[0].add(audit.table, audit.records[-1])

    def note(line: str) -> None:
        if screen:
            screen[0].say(line)
        else:
            waiting.append(line)
            _say(line)

    def failure(failure: ProtocolViolation | Damage) -> None:
        if screen:
            screen[0].failed(failure_line(failure))
        else:
            _say(failure_line(failure))

    events = WatchEvents(entry=entry, failure=failure, note=note,
                         chat=lambda seat, text: screen[0].heard(seat, text) if screen else None)
    result = await watch(address, name, save_dir=save, events=events, announced=announced, code=code,
                         leave=leave)
    if screen:
        if not shown[0].done():
            screen[0].over(result.summary())
        await shown[0]
    return result


async def _watch_web(address: tuple[str, int], name: str, save: Path, announced: str | None,
                     code: str | None, listen: tuple[str, int] | None, open_browser: bool,
                     explicit: str | None, leave: asyncio.Event) -> WatchResult:
    """A page for the room (``--web``): the live table served to browsers, read-only, at
    ``listen`` (default: 127.0.0.1 on a free port), its address the first line of output. The
    page stays up after the game, showing the end and the verdict, until the user leaves
    (Ctrl-C); what goes wrong is said on the terminal too, line by line. ``explicit``: the
    language asked for (else the first browser's)."""
    from cli.web.launch import announce
    from cli.web.server import WebServer, host_port, is_wildcard
    from cli.web.watch_screen import WatchScreen

    screen = WatchScreen(explicit)
    host, port = listen if listen is not None else ("127.0.0.1", 0)
    try:
        server = await WebServer.start(screen, host, port, readonly=True)
    except OSError as err:
        raise UsageError(_("cannot serve the page on {address}: {reason}").format(
            address=f"{host}:{port}", reason=err.strerror or err)) from None
    screen.server = server
    if is_wildcard(host):  # the address the others dial, not 0.0.0.0
        from protocol.discovery import network_addresses

        here = network_addresses()
        if here:
            server.url = f"http://{host_port(here[0], server.port)}/#t={server.token}"
    announce(server, open_browser)

    def failure(failure: ProtocolViolation | Damage) -> None:
        screen.failed(failure)
        _say(failure_line(failure))

    def note(line: str) -> None:
        screen.note(line)
        _say(line)

    events = WatchEvents(entry=screen.entry, failure=failure, note=note, chat=screen.heard)
    bye: str | None = None
    try:
        result = await watch(address, name, save_dir=save, events=events, announced=announced, code=code,
                             leave=leave)
        # The page says the verdict without where this machine keeps the log: other machines
        # may show it (--listen).
        bye = dataclasses.replace(result, log_path=None).summary()
        screen.over(bye)
        if not result.left:
            _say(_("The game is over: the page stays up until you press Ctrl-C."))
            await leave.wait()
        return result
    finally:
        await server.close(bye)


def _address_option(text: str | None, option: str) -> tuple[str, int] | None:
    """``--listen`` or ``--also``'s address, if given; a usage error if it is not one."""
    try:
        return None if text is None else parse_address(text, option)
    except LanError as err:
        raise UsageError(str(err)) from None


def _table_to_watch(args: argparse.Namespace) -> TableAd | None:
    """The table heard on the network that ``watch`` means (none named: the only one heard;
    a name: the table of that name), or None when it is given by HOST:PORT."""
    if args.address is None:
        looking = _("looking for tables on the network (up to {seconds} s)...").format(
            seconds=f"{args.timeout:g}")
        heard, waited = asyncio.run(finding.listen(args.interface, args.timeout, looking,
                                                   lambda t: t.compatible))
        tables = [t for t in heard if t.compatible]
        if not tables:
            raise UsageError(_("no table heard in {seconds} s: is a host running on this network? "
                               "(watch by HOST:PORT where multicast does not reach)").format(
                                   seconds=finding.seconds_text(waited)))
        if len(tables) > 1:
            # TRANSLATORS: {n} is always 2 or more; TABLE stands for a table's name, HOST:PORT
            # for its address.
            raise UsageError(ngettext("{n} table heard: name one, p2p10 watch 'TABLE' (or HOST:PORT)",
                                      "{n} tables heard: name one, p2p10 watch 'TABLE' (or HOST:PORT)",
                                      len(tables)).format(n=len(tables)))
        return tables[0]
    if not finding.looks_like_address(args.address):
        return asyncio.run(finding.find_table(args.address, args.interface, args.timeout, seats_free=False))
    return None


def _watch_exit(result: WatchResult, compared: list[str | None]) -> int:
    """What was watched, printed; 0 if it audits clean (or the user left before anything
    wrong was seen), 1 otherwise."""
    print(result.summary(), flush=True)
    if compared and compared[0] is not None:
        print(compared[0], flush=True)
        return 1
    if result.left and not result.ended:
        # Leaving is the user's choice, not a failure: 1 only if something wrong was seen.
        return 0 if result.report.violation is None and result.report.damage is None else 1
    return 0 if result.report.clean and result.ended else 1


def cmd_watch(args: argparse.Namespace) -> int:
    """Watch a table to the end of its game; 0 if what came audits clean, 1 otherwise."""
    if args.timeout <= 0:
        raise UsageError(_("--timeout must be positive"))
    if not args.web and (args.listen is not None or args.no_browser):
        raise UsageError(_("--listen and --no-browser go with --web"))
    listen = _address_option(args.listen, "--listen")
    found = _table_to_watch(args)
    try:
        address = found.address if found is not None else parse_address(args.address, "watch")
    except LanError as err:
        raise UsageError(str(err)) from None
    # TRANSLATORS: a spectator's name, when they give none and have no login name (at most 32
    # characters).
    name = _name(args.name, pgettext("default name", "Spectator"))
    save = (args.save or data_dir()).absolute()
    save.mkdir(parents=True, exist_ok=True)
    announced = found.fingerprint if found is not None else None
    screen = sys.stdin.isatty() and sys.stdout.isatty()
    code = given_code(args.code, found)
    also = _address_option(args.also, "--also")
    compared: list[str | None] = []

    async def run(code: str | None) -> WatchResult:
        leave = asyncio.Event()
        _leave_on_interrupt(leave)
        second = None if also is None else asyncio.ensure_future(
            watch(also, name, code=code, any_seat=True, leave=leave))
        try:
            if args.web:
                result = await _watch_web(address, name, save, announced, code, listen,
                                          not args.no_browser,
                                          explicit_language(os.environ, getattr(args, "lang", None)),
                                          leave)
            elif screen:
                result = await _watch_screen(address, name, save, announced, code, args.ascii, leave)
            else:
                result = await _watch_plain(address, name, save, announced, code, leave)
            if second is not None and also is not None and not result.left:
                compared.append(await _compare(result, second, also))
            return result
        finally:
            if second is not None and not second.done():
                second.cancel()

    return _watch_exit(with_code(code, run), compared)


async def _compare(result: WatchResult, second: asyncio.Future[WatchResult],
                   also: tuple[str, int]) -> str | None:
    """What watching a second seat (``--also``) found: None if it served the history the host
    showed (the same table entry, no entry the host's feed contradicts), else a line saying
    what differs."""
    at = f"{also[0]}:{also[1]}"
    try:
        other = await asyncio.wait_for(second, ALSO_WAIT)
    except TimeoutError:
        return _("--also {at}: the second seat's feed did not end in time; nothing was compared "
                 "past what it sent").format(at=at)
    except LanError as err:
        return _("--also {at}: {reason}").format(at=at, reason=err)
    differs = one_history(result.records, other.records)
    if differs is not None:
        return _("--also {at}: VIOLATION: {what}").format(at=at, what=differs)
    if not other.report.clean and (other.report.violation or other.report.damage):
        return _("--also {at}: {verdict}").format(at=at, verdict=other.report.verdict())
    print(_("--also {at}: the second seat holds the same history ({n} entries)").format(
        at=at, n=len(other.records)), flush=True)
    return None
