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
:data:`QUEUE_LIMIT` messages or :data:`QUEUE_BYTES` bytes beyond its catch-up (it does not
read) is dropped, never waited for.

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
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.audit import AuditReport, Damage, LiveAudit
from p2p10.chatroom import ChatRefused, check_chat, spectators_notice
from p2p10.errors import ProtocolError, ProtocolViolation
from p2p10.i18n import _
from p2p10.log import Entry, fingerprint, parse_entry, public_bytes
from p2p10.peer import ChatLine, Peer
from protocol.discovery import MAX_TITLE
from protocol.lobby import (
    JOIN_TIMEOUT,
    CodeBusy,
    Gate,
    LanError,
    Say,
    WrongCode,
    host_key_of,
    pack,
    prove_code,
    refused,
    shown,
    unpack,
    unreachable,
    valid_name,
)
from protocol.mesh import url_for
from protocol.private import BadCode, parse_code
from protocol.storage import LOG_SUFFIX, LogWriter, write_private
from protocol.tls import client_context

WATCH_PATH = "/watch"
logger = logging.getLogger("p2p10.watch")
DEFAULT_SPECTATORS = 8
# Messages waiting for one spectator: a whole game is about 2,000 entries, so a spectator that
# catches up mid-game fits; one that stops reading for that long is dropped.
QUEUE_LIMIT = 4096
# And bytes: a message is up to 64 KiB, so the count alone would let one spectator hold 256 MiB.
QUEUE_BYTES = 8 * 1024 * 1024
WATCH_MAX_BYTES = 1024  # what a spectator sends: its name, and a private table's exchange
END_DRAIN = 10.0  # how long the host waits for its spectators to take the end of the game
TELL_EVERY = 2.0  # at most one "/watching" notice for the players in this many seconds
# An entry is at most p2p10.log.MAX_ENTRY_BYTES; its message adds a few bytes.
MESSAGE_MAX_BYTES = 1 << 20
HEARTBEAT = 5.0  # the spectator's side, as on the mesh: a vanished host is noticed in seconds
# The host's side: a spectator's machine that is slow to answer (a busy or sleepy laptop) is
# given longer than a seat's before its link is dropped; it dials again and goes on anyway.
SPECTATOR_HEARTBEAT = 15.0
# A spectator whose link breaks mid-game dials again, going on from the entries it holds:
# after 0.25 s, doubling up to 4 s, for up to two minutes (a host that crashed and is resumed
# with `p2p10 resume` serves its spectators again on the same port); before the game has
# started, for 15 s (a table that never started cannot be resumed: its host has gone).
RECONNECT_FIRST = 0.25
RECONNECT_MAX = 4.0
RECONNECT_FOR = 120.0
RECONNECT_BEFORE_START = 15.0
HOST_CLOSED = "the host closed the link"
GALLERY_LABEL = "p2p10/watch/v1"  # the host's spectator settings file (PROTOCOL section 7.7)


def save_gallery(path: Path, cap: int, code: str | None, title: str | None = None) -> None:
    """Keep a host's spectator settings beside its log, so that a resumed host serves
    spectators as before: the cap, at a private table its code, and the name it announced
    its table under (None if it did not announce it), which a resumed host announces again (the
    file is the owner's alone, as the secrets are)."""
    write_private(path, pack([GALLERY_LABEL, cap, code] + ([title] if title is not None else [])))


def read_gallery(path: Path) -> tuple[int, str | None, str | None] | None:
    """The spectator settings :func:`save_gallery` kept (the cap, the code and the table's
    announced name, None for a table not announced or a file from before it was kept), or None if
    there are none (a seat that is not a host). A damaged file is a :class:`LanError`: a
    private table must never be served to spectators without its code."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise LanError(_("cannot read the spectator settings {path}: {reason}").format(
            path=path, reason=err.strerror)) from None
    try:
        item = unpack(data)
    except ProtocolError:
        item = None
    if not (isinstance(item, list) and len(item) in (3, 4) and item[0] == GALLERY_LABEL
            and type(item[1]) is int and item[1] >= 0
            and (item[2] is None or (isinstance(item[2], str) and _is_code(item[2])))
            and (len(item) == 3 or (isinstance(item[3], str) and 0 < len(item[3]) <= MAX_TITLE))):
        # TRANSLATORS: keep "[label, cap, code]": it is what the file holds.
        raise LanError(_("{path}: spectator settings are [label, cap, code]").format(path=path))
    return item[1], item[2], item[3] if len(item) == 4 else None


def _is_code(text: str) -> bool:
    """Whether ``text`` is a private table's code, spelt as a host makes it."""
    try:
        return parse_code(text) == text
    except BadCode:
        return False


@dataclass(eq=False)
class Spectator:
    """One spectator at the host: its name, link and queue."""

    name: str
    socket: web.WebSocketResponse
    transport: asyncio.Transport | None
    queue: asyncio.Queue[bytes | None]
    dropped: bool = False
    limit: int = QUEUE_BYTES  # the most bytes that may wait for it
    queued: int = 0  # bytes waiting for it now


def _watch_request(first: bytes) -> list[Any]:
    """A spectator's first message, ``['watch', name]`` or ``['watch', name, from, hash]`` (a
    spectator dialling again); raises :class:`ProtocolError` for any other."""
    item = unpack(first)
    if not (isinstance(item, list) and len(item) in (2, 4) and item[0] == "watch"
            and isinstance(item[1], str)
            and (len(item) == 2 or (type(item[2]) is int and item[2] > 0
                                    and isinstance(item[3], bytes) and len(item[3]) == 32))):
        raise ProtocolError("a watch message is ['watch', name] or ['watch', name, from, hash]")
    return item


class Gallery:
    """The host's spectators: :meth:`handle` serves ``/watch``; :meth:`attach` gives them the
    host's peer once the table starts; :meth:`finish` sends the end.

    ``gate`` is the table's door (:class:`~protocol.lobby.Gate`: a private table's code), the
    same as the lobby's. ``say`` tells the host's player who comes and goes."""

    def __init__(self, cap: int, say: Say, gate: Gate, queue_limit: int = QUEUE_LIMIT,
                 end_wait: float = END_DRAIN) -> None:
        self.cap = cap
        self.end_wait = end_wait
        self.queue_limit = queue_limit
        self.say = say
        self.gate = gate
        self.spectators: list[Spectator] = []
        self.peer: Peer | None = None
        self.dropped = 0  # spectators dropped for not keeping up
        self.most_queued = 0  # the most bytes that waited for one spectator
        self.over = False  # the game is over: the end has gone out
        # Spectators whose link broke before the end: they dial again (see watch), and the
        # host waits a little for them at the end rather than close under their feet.
        self.lost = 0
        self.closing = False  # finish() has begun: the players are told nothing more
        self.told = False  # the players have been told who watches, once the deal was done
        self._telling: asyncio.TimerHandle | None = None  # the next "/watching" notice, when due
        self._told_at = -TELL_EVERY  # when the last one was said (the event loop's time)

    @property
    def names(self) -> list[str]:
        """Who is watching now."""
        return [s.name for s in self.spectators if not s.dropped]

    def attach(self, peer: Peer) -> None:
        """The host's peer, once the table starts: its log goes to every spectator."""
        self.peer = peer
        peer.hooks.listen(entry=self._entry, rollback=self._cut, chat=self._chat)
        for spectator in self.spectators:
            self._catch_up(spectator)
        if self.spectators:
            self._tell_players()

    async def finish(self) -> None:
        """The game is over (or the host's peer froze): tell every spectator, give them a few
        seconds to take what is queued, then close. A host that leaves mid-game (its player
        quit: it may be resumed) closes the links without the end, and its spectators dial
        again for a while."""
        peer = self.peer
        self.closing = True
        if self._telling is not None:
            self._telling.cancel()
        if peer is None or not (peer.finished or peer.stopped):
            for spectator in list(self.spectators):
                with contextlib.suppress(Exception):
                    await spectator.socket.close()
            return
        self.over = True
        for spectator in list(self.spectators):
            self._end(spectator)
        deadline = asyncio.get_running_loop().time() + self.end_wait
        while (self.spectators or self.lost) and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.05)
        for spectator in list(self.spectators):
            with contextlib.suppress(Exception):
                await spectator.socket.close()

    def _end(self, spectator: Spectator) -> None:
        """The end of the game for ``spectator``, after the host's evidence if it froze; its
        writer then closes the link."""
        peer = self.peer
        if peer is not None and peer.stopped:
            self._put(spectator, pack(["stopped", peer.stop_reason() or "", list(peer.evidence)]))
        self._put(spectator, pack(["end"]))
        with contextlib.suppress(asyncio.QueueFull):
            spectator.queue.put_nowait(None)

    # ---------------------------------------------------------------- the peer's hooks

    def _entry(self, entry: Entry) -> None:
        self._send(pack(["entry", entry.raw]))
        table = self.peer.table if self.peer is not None else None
        if not self.told and table is not None and (expect := table.expected()) is not None \
                and expect.kind == "move":
            # The deal is done, so every seat has the table and can check a chat line (one
            # sent before a seat knows the table is dropped there): the players hear who came
            # to watch before the start. After this entry is through the host's peer, not
            # from inside it.
            self.told = True
            if self.spectators:
                asyncio.get_running_loop().call_soon(self._tell_players)

    def _cut(self, length: int) -> None:
        self._send(pack(["cut", length]))

    def _chat(self, line: ChatLine) -> None:
        self._send(pack(["chat", line.signed]))  # signed by its seat: the spectator checks it

    def _send(self, data: bytes) -> None:
        for spectator in self.spectators:
            self._put(spectator, data)

    def _put(self, spectator: Spectator, data: bytes) -> None:
        if spectator.dropped:
            return
        try:
            if spectator.queued + len(data) > spectator.limit:
                raise asyncio.QueueFull
            spectator.queue.put_nowait(data)
            spectator.queued += len(data)
            self.most_queued = max(self.most_queued, spectator.queued)
        except asyncio.QueueFull:
            # Never waited for: a spectator that does not keep up is dropped.
            spectator.dropped = True
            self.dropped += 1
            # Cut at once, not closed politely: a close frame would wait behind what the
            # spectator does not read. Its handler then ends and forgets it.
            if spectator.transport is not None:
                spectator.transport.abort()
            self._tell(_("{name} stopped watching: too slow to keep up").format(name=spectator.name))

    def _catch_up_bytes(self) -> int:
        """What a whole catch-up may take in a spectator's queue (over and above its bound)."""
        log = self.peer.log if self.peer is not None else []
        return sum(len(entry.raw) + 16 for entry in log) + 64  # 16: an entry message's packing

    def _catch_up(self, spectator: Spectator, start: int = 0, last: bytes = b"") -> None:
        """Every entry from ``start`` on (a spectator dialling again holds the first ones, the
        last of them hashing to ``last``). If the log is not that any more (it was cut back
        behind the spectator while it was away, and maybe grew again on another branch), the
        spectator is told to start over: ``["cut", 0]``, and every entry."""
        if self.peer is None:
            return
        log = self.peer.log
        if start > 0 and (start > len(log) or log[start - 1].hash != last):
            self._put(spectator, pack(["cut", 0]))
            start = 0
        for entry in log[start:]:
            self._put(spectator, pack(["entry", entry.raw]))

    def _tell(self, line: str) -> None:
        """Tell the host's player, before the game (the console); once it has started, the
        chat line of :meth:`_tell_players` tells every player, the host's included (a line
        printed under a full-screen table would garble it)."""
        if self.peer is None:
            self.say(line)

    def _tell_players(self) -> None:
        """The players see who watches: the host's peer says it at the table (a notice: a
        chat line of :func:`~p2p10.chatroom.spectators_notice`'s form, signed by the host's
        seat like every other, which each player's screen shows as a notice in its own
        language, not as chat), at most once every :data:`TELL_EVERY`
        seconds: spectators that come and go faster (on purpose, to flood the players' chat)
        are told of in one line, who watches by then."""
        if self._telling is not None:
            return  # a line is due: it will say who watches then
        loop = asyncio.get_running_loop()
        self._telling = loop.call_later(max(0.0, self._told_at + TELL_EVERY - loop.time()),
                                        self._say_who_watches)

    def _say_who_watches(self) -> None:
        self._telling = None
        peer = self.peer
        if peer is None or peer.table is None or peer.finished or peer.stopped or self.closing:
            return
        self._told_at = asyncio.get_running_loop().time()
        with contextlib.suppress(Exception):
            peer.say(spectators_notice(self.names))

    # ----------------------------------------------------------------- the link

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        """One spectator's link."""
        socket, first = await self.gate.open(request, max_msg_size=WATCH_MAX_BYTES,
                                                 heartbeat=SPECTATOR_HEARTBEAT)
        if first is None:
            return socket
        try:
            item = _watch_request(first)
            name = valid_name(item[1])
        except (ProtocolError, LanError) as err:
            await self._refuse(socket, str(err))
            return socket
        if len(self.names) >= self.cap:
            await self._refuse(socket, f"the table has {self.cap} spectators already")
            return socket
        if len(item) == 4 and self.lost:
            self.lost -= 1  # one that lost its link is back
        # The catch-up goes in the queue whole, over and above the limit on what waits for a
        # spectator (a long game's log may be longer than that limit).
        behind = len(self.peer.log) if self.peer is not None else 0
        spectator = Spectator(name, socket, request.transport, asyncio.Queue(self.queue_limit + behind),
                              limit=QUEUE_BYTES + self._catch_up_bytes())
        self.spectators.append(spectator)
        spectator.queue.put_nowait(pack(["watching", len(self.names), self.cap]))
        self._catch_up(spectator, *((item[2], item[3]) if len(item) == 4 else ()))
        if self.over:
            self._end(spectator)  # back just after the end: it gets what it missed, and the end
        self._tell(_("{name} is watching").format(name=name))
        self._tell_players()
        await self._follow_link(spectator, socket)
        return socket

    async def _follow_link(self, spectator: Spectator, socket: web.WebSocketResponse) -> None:
        """Write to ``spectator`` until its link ends, then let it go (said to all)."""
        name = spectator.name
        writer = asyncio.ensure_future(self._write(spectator))
        try:
            async for _message in socket:
                pass  # a spectator has nothing to say: whatever it sends is ignored
        except (ConnectionError, aiohttp.ClientError) as err:
            # Answering a ping on a transport that is closing raises here: the link is gone, a
            # line in the log, never a traceback on the host's screen (issue 24, A63).
            logger.info("spectator %s: link broke: %s: %s", name, type(err).__name__, err)
        finally:
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer
            self.spectators.remove(spectator)
            if not self.over:
                self.lost += 1  # it may dial again (see watch): waited for a little at the end
            if not spectator.dropped:
                self._tell(_("{name} stopped watching").format(name=name))
            self._tell_players()

    @staticmethod
    async def _refuse(socket: web.WebSocketResponse, reason: str) -> None:
        with contextlib.suppress(Exception):
            await socket.send_bytes(pack(["refused", reason]))
            await socket.close()

    @staticmethod
    async def _write(spectator: Spectator) -> None:
        while not spectator.dropped:
            data = await spectator.queue.get()
            if data is None:
                break
            await spectator.socket.send_bytes(data)
            spectator.queued -= len(data)
        await spectator.socket.close()


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
    cannot be reached at first (:class:`~protocol.lobby.WrongCode` for the code).
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
