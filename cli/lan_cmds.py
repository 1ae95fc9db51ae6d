"""``p2p10 host``, ``p2p10 join``, ``p2p10 resume`` and ``p2p10 tables``: a table on the LAN, peer
to peer. A person plays in the same terminal table as ``p2p10 play`` (with table chat); with
``--autoplay`` a bot plays the seat with no terminal.

This module is the commands' code, which needs the LAN stack (aiohttp, zeroconf): it is imported
only when one of them runs. Their options are in :mod:`cli.lan_parsers`."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import sys
from collections.abc import Callable

from cli import UsageError
from p2p10.bots import POLICIES
from p2p10.table import MAX_NAME
from protocol.discovery import TableAd, TableBrowser, list_tables
from protocol.lan import Front, GameResult, Host, Joiner, LanError, LanSeat, Resumer, Timing, parse_address


def _name(given: str | None, fallback: str) -> str:
    """The name given with ``--name``, or else the login name (``fallback`` when there is no
    usable one)."""
    if given is not None:
        return given
    try:
        login = getpass.getuser().strip()
    except (KeyError, OSError):  # no passwd entry, as in some containers
        return fallback
    return login[:MAX_NAME] if login and login.isprintable() else fallback


def _timing(args: argparse.Namespace) -> Timing:
    go_on_after: float | None = args.go_on_after
    if go_on_after is not None and not go_on_after > 0:
        raise UsageError("--go-on-after must be positive")
    if not args.away_after > 0:
        raise UsageError("--away-after must be positive")
    if not args.think >= 0:
        raise UsageError("--think must be 0 or more seconds")
    return Timing(args.away_after, go_on_after, args.think)


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
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise UsageError("the table needs a terminal: run this in one, or let a bot play the "
                             "seat with --autoplay POLICY")
        return None
    if args.autoplay not in POLICIES:
        raise UsageError(f"unknown policy {args.autoplay!r}; choose from {', '.join(POLICIES)}")
    policy: str = args.autoplay
    return policy


def _front(policy: str | None, ascii_only: bool) -> Front | None:
    """The play screen for a person (None when a bot plays the seat)."""
    if policy is not None:
        return None

    async def front(seat: LanSeat) -> None:
        from cli.table_app import LanTableApp  # prompt_toolkit loads only for a screen

        await LanTableApp(seat, ascii_only).run()

    return front


def _finish(result: GameResult) -> int:
    print(result.summary(), flush=True)
    return 1 if result.peer.stopped else 0


def cmd_host(args: argparse.Namespace) -> int:
    """Open a table, wait for it to fill (or for Enter), play seat 1 to the end."""
    policy = _check_autoplay(args)
    if not 0 <= args.port < 65536:
        raise UsageError(f"--port must be 0 to 65535, not {args.port}")
    try:
        host = Host(_name(args.name, "Host"), args.seats, args.rules, policy, args.interface, args.port,
                    args.save, title=args.table, advertised=not args.quiet_network,
                    reachable_at=_reachable_at(args), bots=args.bots, bot_level=args.level,
                    start_when_full=starts_when_full(args.start_when_full), front=_front(policy, args.ascii),
                    timing=_timing(args))
    except LanError as err:
        raise UsageError(str(err)) from None
    return _finish(asyncio.run(_host(host)))


NO_TERMINAL = "standard input is not a terminal: the game starts when every seat is taken"


def starts_when_full(asked: bool) -> bool:
    """Whether the table starts by itself once full: when asked (``--start-when-full``), and
    when there is no terminal to press Enter on (a script, ``</dev/null``, a pipe), which is
    said once. Decided before the lobby is built, which takes it at construction."""
    if asked:
        return True
    if sys.stdin is not None and sys.stdin.isatty():
        return False
    print(NO_TERMINAL, flush=True)
    return True


async def _host(host: Host) -> GameResult:
    """Run the table; unless it starts when full, Enter on the terminal starts it."""
    if host.start_when_full:
        return await host.run()
    loop = asyncio.get_running_loop()

    def line() -> None:
        if not sys.stdin.readline():  # end of input: no more Enters to come
            loop.remove_reader(sys.stdin)
            return
        try:
            host.start()
        except LanError as err:
            print(f"p2p10: cannot start: {err}", file=sys.stderr, flush=True)

    print("press Enter to start with the players seated so far", flush=True)
    loop.add_reader(sys.stdin, line)
    try:
        return await host.run()
    finally:
        loop.remove_reader(sys.stdin)


def cmd_join(args: argparse.Namespace) -> int:
    """Sit down at a table and play that seat to the end."""
    policy = _check_autoplay(args)
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    address = args.address
    found: TableAd | None = None
    if address is None:
        found = _choose_table(asyncio.run(_listen(args.interface, args.timeout, "tables", _open)),
                              args.timeout)
    elif not _looks_like_address(address):
        found = asyncio.run(_find_table(address, args.interface, args.timeout))
    if found is not None:
        address = f"{found.address[0]}:{found.address[1]}"
    joiner = Joiner(address, _name(args.name, "Guest"), policy, args.interface, args.save,
                    reachable_at=_reachable_at(args), front=_front(policy, args.ascii),
                    timing=_timing(args),
                    host_fingerprint=found.fingerprint if found is not None else None)
    return _finish(asyncio.run(joiner.run()))


def cmd_resume(args: argparse.Namespace) -> int:
    """Start a seat again from its files and play it to the end."""
    policy = _check_autoplay(args)
    resumer = Resumer(args.file, policy, args.interface, front=_front(policy, args.ascii),
                      bot_level=args.level, timing=_timing(args))
    return _finish(asyncio.run(resumer.run()))


def _looks_like_address(text: str) -> bool:
    host, _, port = text.rpartition(":")
    return bool(host) and port.isdigit()


def _interfaces(interface: str | None) -> list[str] | None:
    return None if interface is None or interface in ("", "0.0.0.0", "::") else [interface]


JOIN_SETTLE = 1.0  # once the table is heard, how long to listen for others before choosing
NAMED_AT_MOST = 6  # tables named when the one wanted is not among those heard


def _open(table: TableAd) -> bool:
    return table.seats_free > 0 and table.compatible


class _Progress:
    """Listening for tables, said on standard error: a line at once and, on a terminal, a short
    line under it with the seconds so far and the tables heard, rewritten in place (short, so
    that it never wraps; a pipe or a file gets the first line alone)."""

    def __init__(self, what: str, timeout: float) -> None:
        self.stream = sys.stderr
        self.live = self.stream.isatty()
        self.shown = ""
        print(f"looking for {what} on the network (up to {timeout:g} s)...", file=self.stream, flush=True)

    def tick(self, seconds: int, heard: int) -> None:
        if not self.live:
            return
        tables = "1 table" if heard == 1 else f"{heard} tables"
        text = f"  {seconds} s, {tables} heard"
        if text != self.shown:
            self.stream.write("\r" + text.ljust(len(self.shown)))
            self.stream.flush()
            self.shown = text

    def end(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


async def _listen(interface: str | None, timeout: float, what: str,
                  wanted: Callable[[TableAd], bool]) -> list[TableAd]:
    """Every table heard, by name: as soon as a ``wanted`` one is, and a moment more for any
    others (not the whole ``timeout``, which is how long to wait when there is none)."""
    progress = _Progress(what, timeout)
    loop = asyncio.get_running_loop()
    start = loop.time()
    until = start + timeout
    heard_one = False
    try:
        async with TableBrowser(_interfaces(interface)) as browser:
            while (now := loop.time()) < until:
                if not heard_one and any(wanted(t) for t in browser.tables.values()):
                    heard_one = True
                    until = min(until, now + JOIN_SETTLE)
                progress.tick(int(now - start), len(browser.tables))
                await asyncio.sleep(0.05)
            return sorted(browser.tables.values(), key=lambda t: (t.table.casefold(), t.host, t.address))
    finally:
        progress.end()


def _heard(table: TableAd) -> str:
    if not table.compatible:
        state = f"protocol {table.version}, not this version"
    elif table.seats_free == 0:
        state = "full"
    else:
        state = f"{table.seats_taken}/{table.seats_taken + table.seats_free} seats"
    return f"{table.table!r} ({state})"


def _what_was_heard(tables: list[TableAd]) -> str:
    """The end of a "no open table ... heard" message: the tables that were heard instead."""
    if not tables:
        return ("; no table at all was heard: is a host running on this network? "
                "(join by HOST:PORT where multicast does not reach)")
    named = ", ".join(_heard(t) for t in tables[:NAMED_AT_MOST])
    more = f" and {len(tables) - NAMED_AT_MOST} more" if len(tables) > NAMED_AT_MOST else ""
    return f"; heard {named}{more} ('p2p10 tables' lists them with their addresses)"


def _describe(table: TableAd) -> str:
    seats = table.seats_taken + table.seats_free
    rules = " ".join(table.options) or "standard rules"
    return (f"{table.table!r} at {table.address[0]}:{table.address[1]}, host {table.host}, "
            f"{table.seats_taken}/{seats} seats, {rules}")


def _choose_table(heard: list[TableAd], timeout: float) -> TableAd:
    """The only open table heard, or the one the player picks from a numbered list."""
    tables = [t for t in heard if _open(t)]
    if not tables:
        raise UsageError(f"no open table heard in {timeout:g} s{_what_was_heard(heard)}")
    if len(tables) > 1 and not sys.stdin.isatty():
        listing = "; ".join(_describe(t) for t in tables)
        raise UsageError(f"{len(tables)} open tables ({listing}): name one, p2p10 join 'TABLE'")
    chosen = tables[0]
    if len(tables) > 1:
        for number, table in enumerate(tables, 1):
            print(f"  {number}. {_describe(table)}")
        while True:
            try:
                answer = input(f"join which table (1-{len(tables)})? ").strip()
            except EOFError:
                raise UsageError("no table chosen") from None
            if answer.isdigit() and 1 <= int(answer) <= len(tables):
                chosen = tables[int(answer) - 1]
                break
    print(f"joining {_describe(chosen)}", flush=True)
    return chosen


async def _find_table(title: str, interface: str | None, timeout: float) -> TableAd:
    def wanted(table: TableAd) -> bool:
        return _open(table) and table.table.casefold() == title.casefold()

    tables = await _listen(interface, timeout, f"table {title!r}", wanted)
    matches = [t for t in tables if wanted(t)]
    if not matches:
        raise UsageError(f"no open table called {title!r} heard in {timeout:g} s{_what_was_heard(tables)}")
    if len(matches) > 1:
        raise UsageError(f"{len(matches)} tables are called {title!r}: join one by HOST:PORT "
                         "('p2p10 tables' lists the addresses)")
    return matches[0]


def cmd_tables(args: argparse.Namespace) -> int:
    """List the tables announced on the network."""
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    tables = asyncio.run(list_tables(_interfaces(args.interface), args.timeout))
    if args.json:
        print(json.dumps({"tables": [
            {"table": t.table, "host": t.host, "address": f"{t.address[0]}:{t.address[1]}",
             "seats_taken": t.seats_taken, "seats_free": t.seats_free, "options": list(t.options),
             "fingerprint": t.fingerprint, "version": t.version, "compatible": t.compatible}
            for t in tables]}))
        return 0
    if not tables:
        print(f"no tables heard in {args.timeout:g} s")
        return 0
    for t in tables:
        rules = " ".join(t.options) or "standard rules"
        note = "" if t.compatible else f"  (protocol {t.version}: not this version)"
        print(f"{t.table:<24} {t.address[0]}:{t.address[1]:<6} {t.seats_taken}/{t.seats_taken + t.seats_free}"
              f" seats  host {t.host} [{t.fingerprint}]  {rules}{note}")
    print("join with: p2p10 join 'TABLE NAME' (or HOST:PORT)")
    return 0
