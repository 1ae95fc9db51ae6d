"""Spectators: following a LAN table without a seat (``p2p10 watch``).

The host serves ``/watch`` beside ``/lobby`` and ``/mesh``, under the same TLS. A spectator
dials it (for a private table it first proves the code, as a joiner does:
:mod:`protocol.private`) and sends ``["watch", name]``, or ``["watch", name, from]`` when it
dials again holding the first ``from`` entries already. The host answers ``["watching",
spectators, cap]`` or ``["refused", reason]`` (the table has ``cap`` spectators already, or the
name is not one). From then on, in order, the host sends:

* ``["entry", envelope]``: every entry of its log, from entry 0 (or ``from``: a spectator who
  comes mid-game catches up first), then each entry as the host's peer accepts it;
* ``["cut", length]``: the host's log was cut back to ``length`` entries (the others went on
  without its machine, over entries nobody else accepted);
* ``["chat", seat, text]``: a line of table chat the host showed;
* ``["stopped", reason, [envelope, ...]]``: the host's peer froze; the envelopes are its
  signed evidence (two entries of one author for one position, or the entry that broke the
  rules);
* ``["end"]``: the game is over; the host closes the link.

A spectator never sends anything else, never writes to the log, and never slows the players:
the entries go to a spectator's own queue after the host's peer has passed them to the seats,
a writer task sends them when the event loop is free, and a spectator whose queue reaches
:data:`~protocol.gallery.QUEUE_LIMIT` messages or :data:`~protocol.gallery.QUEUE_BYTES` bytes
beyond its catch-up (it does not read) is dropped, never waited for. The host's side is
:mod:`protocol.gallery`; the spectator's is here.

The spectator trusts none of it: every entry is checked as it arrives, exactly as a peer checks
it (:class:`p2p10.audit.LiveAudit`), a violation is shown at once with the seat it blames, the
host's evidence is checked before it is believed, and at the end the whole log is audited
again. What a spectator sees is public: hidden cards only at each hand's end-of-hand reveal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.audit import AuditReport, Damage, LiveAudit
from p2p10.chatroom import ChatRefused, check_chat
from p2p10.errors import ProtocolError, ProtocolViolation
from p2p10.i18n import _
from p2p10.log import fingerprint, parse_entry, public_bytes
from protocol.lobby import JOIN_TIMEOUT
from protocol.lobby_messages import CodeBusy, LanError, WrongCode, pack, refused, shown, unpack, unreachable
from protocol.mesh import url_for
from protocol.storage import LOG_SUFFIX, LogWriter
from protocol.taking_seat import host_key_of, prove_code
from protocol.tls import client_context

WATCH_PATH = "/watch"
logger = logging.getLogger("p2p10.watch")
# An entry is at most p2p10.log.MAX_ENTRY_BYTES; its message adds a few bytes.
MESSAGE_MAX_BYTES = 1 << 20
HEARTBEAT = 5.0  # the spectator's side, as on the mesh: a vanished host is noticed in seconds
# A spectator whose link breaks mid-game dials again, going on from the entries it holds:
# after 0.25 s, doubling up to 4 s, for up to two minutes (a host that crashed and is resumed
# with `p2p10 resume` serves its spectators again on the same port); before the game has
# started, for 15 s (a table that never started cannot be resumed: its host has gone).
RECONNECT_FIRST = 0.25
RECONNECT_MAX = 4.0
RECONNECT_FOR = 120.0
RECONNECT_BEFORE_START = 15.0
HOST_CLOSED = "the host closed the link"


# ------------------------------------------------------------------ the spectator


@dataclass
class WatchEvents:
    """What a watcher tells its front as the game goes (every callback optional)."""

    entry: Callable[[LiveAudit], None] = lambda _audit: None
    chat: Callable[[int, str], None] = lambda _seat, _text: None
    failure: Callable[[ProtocolViolation | Damage], None] = lambda _failure: None
    note: Callable[[str], None] = lambda _line: None


@dataclass(frozen=True, slots=True)
class WatchResult:
    """How watching ended: the audit of what came, where the log is, and why the host's peer
    stopped, if it says it did."""

    report: AuditReport
    log_path: Path | None
    host_stopped: str | None
    ended: bool  # the game reached its end: the host said so, or the log received holds it all
    records: tuple[bytes, ...] = ()  # the entries received, checked, in order
    left: bool = False  # the spectator left before the end (q, or Ctrl-C)

    def summary(self) -> str:
        """One line: the verdict on the log watched, and where it is."""
        saved = _("; log {log}").format(log=self.log_path) if self.log_path is not None else ""
        if self.left and not self.ended:
            # TRANSLATORS: {verdict} is the audit's verdict on the entries received so far
            # (in English: "INCOMPLETE: ...").
            return _("you stopped watching before the game ended: {verdict}").format(
                verdict=self.report.verdict()) + saved
        if not self.ended and self.report.violation is None and self.report.damage is None:
            return _("the host's link closed before the game ended: {verdict}").format(
                verdict=self.report.verdict()) + saved
        return self.report.verdict() + saved


async def watch(address: tuple[str, int], name: str, *, save_dir: Path | None = None,
                events: WatchEvents | None = None, announced: str | None = None,
                code: str | None = None, any_seat: bool = False,
                leave: asyncio.Event | None = None) -> WatchResult:
    """Follow the table whose host listens at ``address`` as ``name``, to the game's end,
    checking every entry. ``save_dir``: where to write the log as the entries come (a file
    named like a seat's, ``...-watch.p2p10``). ``announced``: the host key's fingerprint the
    table was announced with (pinned). ``code``: a private table's. A link that breaks
    mid-game is dialled again (for up to :data:`RECONNECT_FOR` seconds, while nothing answers
    or links break at once; :data:`RECONNECT_BEFORE_START` before the game has started),
    going on from the entries already held. Raises :class:`LanError` if the host refuses or
    cannot be reached at first (:class:`~protocol.lobby_messages.WrongCode` for the code).
    ``any_seat``: the machine at ``address`` may be any seat's, not only the host's (a second
    seat, ``p2p10 watch --also``, whose feed is compared with the host's). ``leave``: once
    set, the spectator stops at once (the result says it left, with what came by then)."""
    watcher = _Watcher(address, name, save_dir, events or WatchEvents(), announced, code, any_seat)
    running = asyncio.ensure_future(watcher.run())
    leaving = asyncio.ensure_future(leave.wait() if leave is not None else asyncio.Event().wait())
    try:
        await asyncio.wait({running, leaving}, return_when=asyncio.FIRST_COMPLETED)
        if running.done():
            return running.result()
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
        return watcher.result(left=True)
    finally:
        for task in (running, leaving):
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        watcher.close()


class _LinkLost(Exception):
    """The link to the host broke before the end of the game (not a refusal)."""


class _Watcher:
    """One spectator's state across the links it dials (see :func:`watch`)."""

    def __init__(self, address: tuple[str, int], name: str, save_dir: Path | None,
                 events: WatchEvents, announced: str | None, code: str | None,
                 any_seat: bool = False) -> None:
        self.any_seat = any_seat  # a second seat (watch --also), not the host
        self.address = address
        self.name = name
        self.save_dir = save_dir
        self.events = events
        self.announced = announced
        self.code = code
        self.identity = Ed25519PrivateKey.generate()  # a spectator has no seat: a key of its own
        self.audit = LiveAudit()
        self.writer: LogWriter | None = None
        self.saved: Path | None = None
        self.host_stopped: str | None = None
        self.host_key: bytes | None = None
        self.welcomed = False  # the host has admitted this spectator (on some link)
        self.linked = False  # the last link dialled was admitted

    async def run(self) -> WatchResult:
        ended = False
        loop = asyncio.get_running_loop()
        lost_at = loop.time()  # when the host was last lost
        pause = RECONNECT_FIRST
        lost = False  # dialling again since lost_at
        while True:
            try:
                ended = await self._follow(first=not self.welcomed)
                break
            except _LinkLost:
                if self.audit.stopped or self._complete():
                    break  # frozen, or the whole game is here: nothing more can come
                if self.linked or not lost:  # a link that was up broke: dial again
                    self.linked, lost = False, True
                    lost_at, pause = loop.time(), RECONNECT_FIRST
                    self.events.note(_("the link to the host broke; dialling again"))
                elif loop.time() - lost_at >= (window := self._redial_window()):
                    self.events.note(_("the host has not answered for {seconds:.0f} s: stopped "
                                       "watching").format(seconds=window))
                    break
                await asyncio.sleep(pause)
                pause = min(RECONNECT_MAX, 2 * pause)
            except CodeBusy as busy:  # a private table slows down attempts at its code
                self.events.note(str(busy))
                await asyncio.sleep(busy.wait)
            except LanError as err:
                if not self.welcomed:
                    raise
                self.events.note(str(err))
                break  # refused, or another machine answers: what came stands
        return self.result(ended)

    def result(self, ended: bool = False, left: bool = False) -> WatchResult:
        """How watching ended (``ended``: the host said the game is over), with what came."""
        # A link that broke after the last entry of the game lost only the host's "end".
        return WatchResult(self.audit.report(), self.saved, self.host_stopped, ended or self._complete(),
                           tuple(self.audit.records), left)

    def _redial_window(self) -> float:
        """How long to dial a host that is gone: long once the game has started (the host may
        be resumed), short before (its table is gone)."""
        return RECONNECT_FOR if self.audit.table is not None else RECONNECT_BEFORE_START

    def _complete(self) -> bool:
        """Whether the log received holds the whole game, every entry checked."""
        return self.audit.failure is None and self.audit.report().complete

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()

    async def _follow(self, first: bool) -> bool:
        """One link, from the entries already held on; True once the host says the game is
        over. :class:`_LinkLost` if it breaks first; :class:`LanError` for a refusal."""
        host, port = self.address
        try:
            async with aiohttp.ClientSession() as session, session.ws_connect(
                    url_for(host, port, WATCH_PATH), max_msg_size=MESSAGE_MAX_BYTES,
                    ssl=client_context(self.identity), heartbeat=HEARTBEAT) as socket:
                host_key = host_key_of(socket, self.announced)
                if self.host_key not in (None, host_key):
                    raise LanError(_("another machine answers at {host}:{port} now (another key)").format(
                        host=host, port=port))
                self.host_key = host_key
                try:
                    if self.code is not None:
                        await prove_code(socket, self.code, host_key, public_bytes(self.identity))
                    held = self.audit.records
                    await socket.send_bytes(pack(["watch", self.name, len(held), _hash_of(held[-1])]
                                                 if held else ["watch", self.name]))
                    item = _item(await asyncio.wait_for(socket.receive(), JOIN_TIMEOUT))
                    refused(item)
                except WrongCode:
                    raise
                except (LanError, ProtocolError, TimeoutError):
                    if first:
                        raise
                    # Dialling again: the host may still count the link that broke against
                    # its cap, or be slowing down guesses, or the link broke again.
                    raise _LinkLost from None
                if item[:1] != ["watching"]:
                    raise LanError(_("the host sent something other than a welcome"))
                self.welcomed = self.linked = True
                if first:
                    self.events.note(_("watching the table at {host}:{port} (host key {key})").format(
                        host=host, port=port, key=fingerprint(host_key)))
                async for message in socket:
                    if await self._take(_item(message)):
                        return True
        except aiohttp.WSServerHandshakeError as err:
            # Something answers, but serves no spectators there (not a p2p10 host, or not one
            # that hosts this table): no use dialling it again.
            raise LanError(_("{host}:{port} serves no spectators (HTTP {status})").format(
                host=host, port=port, status=err.status)) from None
        except aiohttp.ClientConnectorError as err:
            if not first:
                raise _LinkLost from None  # the host's machine is down: it may come back
            raise unreachable(host, port, err.os_error) from None
        except (aiohttp.ClientError, OSError, ConnectionError):
            raise _LinkLost from None
        except (ProtocolError, TimeoutError) as err:
            if isinstance(err, ProtocolError) and str(err) == HOST_CLOSED:
                raise _LinkLost from None
            raise LanError(_("the host sent a bad message: {reason}").format(
                reason=err or "none in time")) from None
        raise _LinkLost

    async def _take(self, item: list[Any]) -> bool:
        """One message from the host; True for the end of the game."""
        kind = item[0]
        if kind not in _SHAPES:
            return False  # a message of a later version: passed over
        if not _SHAPES[kind][0](item):
            raise ProtocolError(_SHAPES[kind][1])
        if kind == "entry":
            await self._take_entry(item[1])
        elif kind == "cut":
            await asyncio.to_thread(self.audit.cut, item[1])  # (it folds the entries kept again)
            if self.writer is not None:
                self.writer.keep_first(len(self.audit.records))
        elif kind == "chat":
            self._take_chat(item[1])
        elif kind == "stopped":
            await self._take_stopped(item[1], item[2])
        return bool(kind == "end")

    async def _take_entry(self, raw: bytes) -> None:
        """An entry of the game: audited, saved, told."""
        audit = self.audit
        if audit.stopped:
            return  # frozen at the failure, as a peer is: nothing more is taken
        # Checked off the event loop, so that the link's pings are answered meanwhile
        # (a proof of shuffle takes a while on a slow machine).
        failure = await asyncio.to_thread(audit.add, raw)
        if failure is not None:
            self.events.failure(failure)
            return
        if len(audit.records) == 1:
            self._check_host()
        if self.writer is None and self.save_dir is not None and audit.table is not None:
            self.saved = spectator_log(self.save_dir, audit.table.table_id)
            self.writer = LogWriter(self.saved)
        if self.writer is not None:
            self.writer.append(raw)
        self.events.entry(audit)

    def _check_host(self) -> None:
        """After the table entry: the machine on this link must be the table's host."""
        audit = self.audit
        if audit.table is not None and not (
                audit.table.keys[0] == self.host_key
                or (self.any_seat and self.host_key in audit.table.keys)):
            # The table's host (seat 1) is not the machine on this link: another machine
            # serves (or relays) the table. Its entries are signed all the same, but this
            # is not the table the spectator dialled.
            seated = fingerprint(audit.table.keys[0])
            audit.cut(0)
            raise LanError(_("the machine at {host}:{port} is not this table's host: its link "
                             "proves key {key}, the table seats {seated} as host").format(
                host=self.address[0], port=self.address[1],
                key=fingerprint(self.host_key or b""), seated=seated))

    def _take_chat(self, signed: bytes) -> None:
        """A chat line, shown only if its seat signed it."""
        try:
            if self.audit.table is None:
                raise ChatRefused("chat before the table")
            line = check_chat(self.audit.table, signed)
        except ChatRefused:
            # The host's word alone about what a player said: not shown.
            self.events.note(_("the host passed on a chat line its seat did not sign: not shown"))
        else:
            self.events.chat(line.seat, line.text)

    async def _take_stopped(self, reason: str, evidence: list[Any]) -> None:
        """The host's peer stopped: what its evidence proves here, if anything."""
        self.host_stopped = shown(reason)
        proven = await asyncio.to_thread(self.audit.evidence, [e for e in evidence if isinstance(e, bytes)])
        if proven is not None:
            self.events.failure(proven)
        else:
            self.events.note(_("the host's peer stopped: {reason} (its evidence proves nothing "
                               "here)").format(reason=self.host_stopped))


# What each message from the host must look like (after the welcome), and what is said when
# it does not: a malformed message ends the link (the host sent a bad message).
_SHAPES: dict[str, tuple[Callable[[list[Any]], bool], str]] = {
    "entry": (lambda i: len(i) == 2 and isinstance(i[1], bytes), "an entry message is ['entry', envelope]"),
    "cut": (lambda i: len(i) == 2 and type(i[1]) is int and i[1] >= 0, "a cut message is ['cut', length]"),
    "chat": (lambda i: len(i) == 2 and isinstance(i[1], bytes), "a chat message is ['chat', signed chat]"),
    "stopped": (lambda i: len(i) == 3 and isinstance(i[1], str) and isinstance(i[2], list),
                "a stopped message is ['stopped', reason, evidence]"),
    "end": (lambda i: True, ""),
}


def _hash_of(raw: bytes) -> bytes:
    """The hash of an entry the spectator holds (checked already, so it parses)."""
    return parse_entry(raw).hash


def spectator_log(folder: Path, table_id: bytes) -> Path:
    """Where a spectator saves the log of table ``table_id`` it starts watching now."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return folder.absolute() / f"{stamp}-{table_id.hex()[:8]}-watch{LOG_SUFFIX}"


def _item(message: aiohttp.WSMessage) -> list[Any]:
    """A message from the host as a non-empty list; :class:`ProtocolError` otherwise."""
    if message.type != aiohttp.WSMsgType.BINARY:
        # ERROR is what a ping unanswered in time gives (a host gone quiet): a broken link,
        # like a closed one, and nobody's bad message.
        raise ProtocolError(HOST_CLOSED if message.type in (
            aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING,
            aiohttp.WSMsgType.ERROR) else "a watch message is a binary frame")
    item = unpack(message.data)
    if not (isinstance(item, list) and item and isinstance(item[0], str)):
        raise ProtocolError("a watch message is a non-empty array")
    return item
