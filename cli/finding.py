"""Finding tables on the network: listening to their announcements (with progress), describing
what was heard, choosing the table a name or an address means, and p2p10 tables. The commands
that then host, join, resume or watch are cli.lan_cmds and cli.watch_cmd."""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import sys
from collections.abc import Callable

from cli import UsageError
from p2p10.i18n import _, ngettext, pgettext
from p2p10.log import fingerprint
from protocol.discovery import BadAdvertisement, TableAd, TableBrowser, list_tables
from protocol.lan import LanError, parse_address
from protocol.taking_seat import ask_table


def asked_table(at: str) -> TableAd:
    """The table of the host at ``at`` (HOST:PORT), asked directly (no announcement crosses
    networks): what it says, checked field by field, and its key the one its TLS link proves.
    Exits 1 with a clear line if it cannot be asked."""
    try:
        address = parse_address(at, "--at")
    except LanError as err:
        raise UsageError(str(err)) from None
    try:
        described, key = asyncio.run(ask_table(address))
        table = TableAd.from_json(described, address)
    except BadAdvertisement as err:
        raise LanError(_("the host at {at} described its table badly: {reason}").format(
            at=at, reason=err)) from None
    if fingerprint(key) != table.fingerprint:
        raise LanError(_("the host at {at} describes a table with key {described}, but its link "
                         "proves key {key}").format(at=at, described=table.fingerprint,
                                                     key=fingerprint(key)))
    return table


def looks_like_address(text: str) -> bool:
    host, _colon, port = text.rpartition(":")
    return bool(host) and port.isdigit()


def _interfaces(interface: str | None) -> list[str] | None:
    return None if interface is None or interface in ("", "0.0.0.0", "::") else [interface]


JOIN_SETTLE = 1.0  # once the table is heard, how long to listen for others before choosing
# With no table wanted heard yet: once every table that answered is resolved and nothing new
# has come for this long, the network's tables have been heard (multicast DNS answers within
# a fraction of a second, and the browser asks again after 1 s), and the search ends.
QUIET_AFTER = 3.0
NAMED_AT_MOST = 6  # tables named when the one wanted is not among those heard


def is_open(table: TableAd) -> bool:
    return table.seats_free > 0 and table.compatible and not table.started


class _Progress:
    """Listening for tables, said on standard error: a line at once and, on a terminal, a short
    line under it with the seconds so far and the tables heard, rewritten in place (short, so
    that it never wraps; a pipe or a file gets the first line alone)."""

    def __init__(self, looking: str) -> None:
        self.stream = sys.stderr
        self.live = self.stream.isatty()
        self.shown = ""
        print(looking, file=self.stream, flush=True)

    def tick(self, seconds: int, heard: int) -> None:
        if not self.live:
            return
        # TRANSLATORS: the progress of a search for tables, rewritten each second; keep it short.
        text = "  " + ngettext("{seconds} s, {n} table heard", "{seconds} s, {n} tables heard",
                               heard).format(seconds=seconds, n=heard)
        if text != self.shown:
            self.stream.write("\r" + text.ljust(len(self.shown)))
            self.stream.flush()
            self.shown = text

    def end(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


async def listen(interface: str | None, timeout: float, looking: str,
                  wanted: Callable[[TableAd], bool], by_name: bool = False,
                  namesake: Callable[[TableAd], bool] | None = None) -> tuple[list[TableAd], float]:
    """Every table heard, by name, and the seconds it took: as soon as a ``wanted`` one is
    heard, a moment more for any others; when none is, until the network has gone quiet
    (some table heard, every table that answered resolved, and nothing new for
    :data:`QUIET_AFTER` seconds: the tables there are have all been heard), or at the latest
    ``timeout`` (a network where no table at all is heard yet may have a host just starting).
    Only a search ``by_name`` stops when the network is quiet: a join that names no table
    waits for an open one, which a host starting with it may not have announced yet. Once a
    ``namesake`` is heard (a table of that name that is not wanted: a game under way, which
    anybody can announce under any name), quiet must last twice as long, so that the open
    table, heard late on a busy machine, is not given up for it. ``looking`` is said first, on
    a line of its own."""
    progress = _Progress(looking)
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
                quiet_since = browser.changed_at if browser.changed_at is not None else start
                quiet = QUIET_AFTER * (2 if namesake is not None
                                       and any(namesake(t) for t in browser.tables.values()) else 1)
                # Quiet once a table has been heard: before any, a host may still be starting
                # (announced as the search begins), and the search waits for it to the timeout.
                if (by_name and not heard_one and browser.tables and browser.settled
                        and now - quiet_since >= quiet):
                    break  # (a busy announcer keeps it listening, up to the timeout at most)
                progress.tick(int(now - start), len(browser.tables))
                await asyncio.sleep(0.05)
            tables = sorted(browser.tables.values(), key=lambda t: (t.table.casefold(), t.host, t.address))
            return tables, min(loop.time(), until) - start
    finally:
        progress.end()


def seconds_text(seconds: float) -> str:
    """Seconds as a message says them: ``3``, ``2.5``."""
    return f"{round(seconds, 1):g}"


def _heard(table: TableAd) -> str:
    if not table.compatible:
        state = _("protocol {version}, not this version").format(version=table.version)
    elif table.started:
        # TRANSLATORS: a table heard on the network whose game is being played (it can be
        # watched, not joined).
        state = _("game under way")
    elif table.seats_free == 0:
        # TRANSLATORS: a table heard on the network with no seat free.
        state = pgettext("table", "full")
    else:
        # TRANSLATORS: {seats} is always 2 or more.
        state = _("{taken}/{seats} seats").format(taken=table.seats_taken,
                                                  seats=table.seats_taken + table.seats_free)
    return f"{table.table!r} ({state})"


def _what_was_heard(tables: list[TableAd]) -> str:
    """The second half of a "no open table ... heard" message, a clause of its own: the tables
    that were heard instead."""
    if not tables:
        return _("no table at all was heard: is a host running on this network? (join by "
                 "HOST:PORT where multicast does not reach)")
    named = ", ".join(_heard(t) for t in tables[:NAMED_AT_MOST])
    if len(tables) > NAMED_AT_MOST:
        more = len(tables) - NAMED_AT_MOST
        # TRANSLATORS: {tables} names some of the tables heard, {n} is how many more were.
        return ngettext("heard {tables} and {n} more ('p2p10 tables' lists them with their "
                        "addresses)",
                        "heard {tables} and {n} more ('p2p10 tables' lists them with their "
                        "addresses)", more).format(tables=named, n=more)
    return _("heard {tables} ('p2p10 tables' lists them with their addresses)").format(tables=named)


def _rules(table: TableAd) -> str:
    """The rule options a table announces, in notation, or "standard rules"."""
    return " ".join(table.options) or _("standard rules")


def _describe(table: TableAd) -> str:
    return _("{table} at {address}, host {host}, {taken}/{seats} seats, {rules}").format(
        table=repr(table.table), address=f"{table.address[0]}:{table.address[1]}", host=table.host,
        taken=table.seats_taken, seats=table.seats_taken + table.seats_free, rules=_rules(table))


def choose_table(heard: list[TableAd], waited: float) -> TableAd:
    """The only open table heard (in ``waited`` seconds), or the one the player picks from a
    numbered list."""
    tables = [t for t in heard if is_open(t)]
    if not tables:
        # TRANSLATORS: {heard} is a clause of its own, "heard 'Ann's table' (full)" or "no table
        # at all was heard: ..."
        raise UsageError(_("no open table heard in {seconds} s; {heard}").format(
            seconds=seconds_text(waited), heard=_what_was_heard(heard)) + _watch_hint(heard))
    if len(tables) > 1 and not sys.stdin.isatty():
        listing = "; ".join(_describe(t) for t in tables)
        # TRANSLATORS: {n} is always 2 or more; TABLE stands for a table's name.
        raise UsageError(ngettext("{n} open table ({tables}): name one, p2p10 join 'TABLE'",
                                  "{n} open tables ({tables}): name one, p2p10 join 'TABLE'",
                                  len(tables)).format(n=len(tables), tables=listing))
    chosen = tables[0]
    if len(tables) > 1:
        for number, table in enumerate(tables, 1):
            print(f"  {number}. {_describe(table)}")
        while True:
            try:
                answer = input(_("join which table (1-{n})? ").format(n=len(tables))).strip()
            except EOFError:
                raise UsageError(_("no table chosen")) from None
            if answer.isdigit() and 1 <= int(answer) <= len(tables):
                chosen = tables[int(answer) - 1]
                break
    print(_("joining {table}").format(table=_describe(chosen)), flush=True)
    return chosen


async def find_table(title: str, interface: str | None, timeout: float,
                      seats_free: bool = True) -> TableAd:
    """The one table called ``title`` heard on the network (with a seat free, unless only to
    watch it: ``seats_free`` False, when a game under way will do)."""
    def called(table: TableAd) -> bool:
        return table.compatible and table.table.casefold() == title.casefold()

    def wanted(table: TableAd) -> bool:
        return called(table) and (is_open(table) or not seats_free)

    looking = _("looking for table {title} on the network (up to {seconds} s)...").format(
        title=repr(title), seconds=f"{timeout:g}")
    tables, waited = await listen(interface, timeout, looking, wanted, by_name=True,
                                   namesake=lambda t: called(t) and not wanted(t))
    matches = [t for t in tables if wanted(t)]
    if not matches and any(called(t) and t.started for t in tables):
        # TRANSLATORS: {title} is a table's name, quoted; keep "p2p10 watch" as it is.
        raise UsageError(_("the game at table {title} has started: no seat is free now; "
                           "watch it with p2p10 watch {title}").format(title=_quoted(title)))
    if not matches:
        # TRANSLATORS: {heard} is a clause of its own, "heard 'Ann's table' (full)" or "no table
        # at all was heard: ..."
        raise UsageError(_("no open table called {title} heard in {seconds} s; {heard}").format(
            title=repr(title), seconds=seconds_text(waited), heard=_what_was_heard(tables)))
    if len(matches) > 1:
        # TRANSLATORS: {n} is always 2 or more.
        raise UsageError(ngettext("{n} table is called {title}: join one by HOST:PORT "
                                  "('p2p10 tables' lists the addresses)",
                                  "{n} tables are called {title}: join one by HOST:PORT "
                                  "('p2p10 tables' lists the addresses)",
                                  len(matches)).format(n=len(matches), title=repr(title)))
    return matches[0]


def _quoted(title: str) -> str:
    """A table's name as it is typed in a shell command line (in single quotes unless it is
    one plain word)."""
    return shlex.quote(title)


def _watch_hint(heard: list[TableAd]) -> str:
    """After "no open table": how to watch the games under way among those ``heard``."""
    playing = [t for t in heard if t.started and t.compatible]
    if not playing:
        return ""
    # TRANSLATORS: {title} is a table's name as typed in a shell; keep "p2p10 watch" as it is.
    return "; " + _("a game under way can be watched: p2p10 watch {title}").format(
        title=_quoted(playing[0].table))


def cmd_tables(args: argparse.Namespace) -> int:
    """List the tables announced on the network."""
    if args.timeout <= 0:
        raise UsageError(_("--timeout must be positive"))
    if args.at is not None:
        tables = [asked_table(args.at)]
    else:
        tables = asyncio.run(list_tables(_interfaces(args.interface), args.timeout))
    if args.json:
        print(json.dumps({"tables": [t.as_json() for t in tables]}))
        return 0
    if not tables:
        print(_("no tables heard in {seconds} s").format(seconds=f"{args.timeout:g}"))
        return 0
    for t in tables:
        private = ("  " + _("(private: join with its code)")) if t.private else ""
        if t.started:
            # TRANSLATORS: in the list of tables, a table whose game is being played (it can
            # be watched, not joined); {n} is always 2 or more.
            seats = ngettext("game under way, {n} player", "game under way, {n} players",
                             t.seats).format(n=t.seats)
        else:
            seats = _("{taken}/{seats} seats").format(taken=t.seats_taken, seats=t.seats)
        # TRANSLATORS: in the list of tables: the host's name and its key's fingerprint.
        host = _("host {host} [{fingerprint}]").format(host=t.host, fingerprint=t.fingerprint)
        line = f"{t.table:<24} {t.address[0]}:{t.address[1]:<6} {seats}  {host}  {_rules(t)}{private}"
        if not t.compatible:
            line += "  " + _("(protocol {version}: not this version)").format(version=t.version)
        print(line)
    # TRANSLATORS: TABLE NAME stands for a table's name, HOST:PORT for its address.
    print(_("join with: p2p10 join 'TABLE NAME' (or HOST:PORT)"))
    if any(t.started for t in tables):
        # TRANSLATORS: TABLE NAME stands for a table's name, HOST:PORT for its address.
        print(_("watch a game under way: p2p10 watch 'TABLE NAME' (or HOST:PORT)"))
    return 0
