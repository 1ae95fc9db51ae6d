"""The host's side of watching a table: its gallery of spectators (who may watch, each one's
catch-up and bounded queue, the notices to the players) and the settings file it keeps. The
protocol and the spectator's side are protocol.watch."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from p2p10.chatroom import spectators_notice
from p2p10.errors import ProtocolError
from p2p10.i18n import _
from p2p10.log import Entry
from p2p10.peer import ChatLine, Peer
from protocol.discovery import MAX_TITLE
from protocol.lobby import Gate, Say
from protocol.lobby_messages import LanError, pack, unpack, valid_name
from protocol.private import BadCode, parse_code
from protocol.storage import write_private

DEFAULT_SPECTATORS = 8
# Messages waiting for one spectator: a whole game is about 2,000 entries, so a spectator that
# catches up mid-game fits; one that stops reading for that long is dropped.
QUEUE_LIMIT = 4096
# And bytes: a message is up to 64 KiB, so the count alone would let one spectator hold 256 MiB.
QUEUE_BYTES = 8 * 1024 * 1024
WATCH_MAX_BYTES = 1024  # what a spectator sends: its name, and a private table's exchange
END_DRAIN = 10.0  # how long the host waits for its spectators to take the end of the game
TELL_EVERY = 2.0  # at most one "/watching" notice for the players in this many seconds
# The host's side: a spectator's machine that is slow to answer (a busy or sleepy laptop) is
# given longer than a seat's before its link is dropped; it dials again and goes on anyway.
SPECTATOR_HEARTBEAT = 15.0
GALLERY_LABEL = "p2p10/watch/v1"  # the host's spectator settings file (PROTOCOL section 7.7)

# Broken spectator links are a line in the program's log, never a traceback on the screen.
logger = logging.getLogger("p2p10.watch")


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
