"""A peer's transport on a LAN: a full mesh of authenticated aiohttp websockets.

Every peer listens on an ephemeral port (route ``/mesh``), under TLS 1.3 (:mod:`protocol.tls`):
each side of a link presents the certificate of its identity key, and each pins the other's to
the roster (the dialler before it sends a frame, the listener once the handshake below has
named the seat). Once the seats are known (the
roster), the **lower seat dials the higher seat**: seat 0 dials everybody, the last seat dials
nobody, so each pair of seats has exactly one link and two peers never race to open it. A
dialler whose link drops dials again with a growing backoff; a listener that accepts a second
link from a seat replaces the first (the peer was restarted or the old link is half dead). A
restarted peer listens on the port it had (``p2p10 resume``), so its dialler finds it again.

Handshake, on every link, before anything else (all frames binary):

1. each side sends ``hello = public key (32 bytes) ‖ challenge (32 fresh random bytes)``;
2. each side sends ``proof = Ed25519 signature (64 bytes)``, under the handshake domain tag
   (:mod:`p2p10.signing`), of ``b"p2p10/hello/v1" ‖ table id ‖ dialler's challenge ‖
   listener's challenge ‖ dialler's key ‖ listener's key``, and checks the other side's proof
   with the key it sent.

The signature binds the link to the table (another table's id gives another message) and to
both fresh challenges (an old proof cannot be replayed). A key that is not seated at the table
is refused and the link closed. TLS protects the stream after it: a machine in the middle can
neither read nor inject, change or replay a frame (the connection drops on the first altered
byte, and nobody is blamed: the dialler dials again); it can only delay or cut the link, which
the peer's want and resend repair. Every entry is signed by its author besides.

After the handshake each binary frame is one peer message (:mod:`p2p10.peer`: ``[0, entry]``
or ``[1, seq]``), at most :data:`~p2p10.peer.MAX_MESSAGE_BYTES`. A larger frame, a text frame,
a frame that is not a peer message, or more frames than the rate limit allows closes that link,
with a fault against that seat in :attr:`Peer.faults`; the peer itself goes on.

The mesh pumps :meth:`Peer.take_outbox` to the links after every frame received and on a
timer that also calls :meth:`Peer.poll`. Messages for a seat with no link are dropped: the
peer that misses them asks for them again (``want``). Every link that comes up or goes down is
reported to the peer (:meth:`Peer.linked`): that alone decides when a machine is away, and on
every new link each side at once asks for the entries from the end of its log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import ssl
import time
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from p2p10.errors import ProtocolError
from p2p10.log import PUBLIC_KEY_BYTES, SIGNATURE_BYTES, BadEntry, parse_entry, public_bytes, public_key
from p2p10.peer import ENTRY, MAX_MESSAGE_BYTES, WANT, Peer, decode_message, encode_want
from p2p10.peer_parts import Fault
from p2p10.signing import Domain, sign, verify
from protocol.checkpoint import Keeper
from protocol.mesh_link import (
    LINK_BYTES,
    RATE_BURST,
    RATE_PER_SECOND,
    HandshakeFailed,
    Link,
    RateLimit,
    Socket,
    hello_message,
)
from protocol.storage import LogWriter, SeatFiles, SecretsWriter
from protocol.tls import client_context, require_key

CHALLENGE_BYTES = 32
HELLO_BYTES = PUBLIC_KEY_BYTES + CHALLENGE_BYTES
MESH_PATH = "/mesh"
HANDSHAKE_TIMEOUT = 5.0
POLL_EVERY = 0.1
BACKOFF_FIRST = 0.1
BACKOFF_MAX = 2.0
CLOSE_POLICY = 1008  # websocket close code "policy violation"
CLOSE_REASON_BYTES = 123  # the most a close frame carries
# aiohttp pings every HEARTBEAT seconds and closes a link whose pong does not come back within
# half of it: a peer whose machine vanished (cable out, laptop lid shut) is noticed in seconds
# rather than at the operating system's TCP timeout, and its dialler starts redialling.
HEARTBEAT = 5.0
# A finished peer stays until every other seat has shown that it holds the whole log (a want
# from the log's end, or an entry passed on): a seat that missed the last entries can only get
# them from a peer still there. At most this long, for a seat that never says so.
LINGER = 30.0
# A seat with no link for this long is not waited for (its machine went away); a link that was
# cut is dialled again well within it.
GONE_AFTER = 2 * BACKOFF_MAX + HANDSHAKE_TIMEOUT
# A peer frozen on a violation stays this long, so that late askers still get the evidence.
LINGER_STOPPED = 2.0

# Broken links are a line in the program's log, never a traceback on the player's screen.
logger = logging.getLogger("p2p10.mesh")


def attach_files(peer: Peer, log_path: Path, durable: bool = True,
                 identity_saved: bool = False) -> tuple[LogWriter, SecretsWriter]:
    """Save ``peer``'s log at ``log_path`` and its secrets beside it, as they happen (before
    anything that depends on them is sent, since the peer calls back before it relays): the
    first listeners of its hooks, so that its files have an entry before anybody else hears of
    it. A restarted peer (``identity_saved``) appends to the files it has. This machine's
    checkpoint of the log is kept beside it too (:class:`protocol.checkpoint.Keeper`)."""
    # The identity first: once the log exists, ``p2p10 resume`` must find the seat's key.
    secrets = SecretsWriter(SeatFiles(log_path).secrets, durable=durable)
    if not identity_saved:
        secrets.add_identity(peer.seat, peer.identity.private_bytes_raw())
    log = LogWriter(log_path, durable=durable)
    peer.hooks.listen(entry=log.add, rollback=log.keep_first, secret=secrets.add_hand)
    # This machine's checkpoint of the log, kept as the game goes: a resume folds little.
    peer.hooks.listen(entry=Keeper(peer, log).entry_added)
    return log, secrets


def url_for(host: str, port: int, path: str) -> str:
    """The websocket URL of a peer's route (an IPv6 address goes in brackets)."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"https://{host}:{port}{path}"


class Mesh:
    """The links of one peer to every other seat (see the module docstring).

    Create it, serve :meth:`handle` at :data:`MESH_PATH`, call :meth:`seat_table` once the
    roster is known, then :meth:`run`.
    """

    def __init__(self, peer: Peer, table_id: bytes, *, rate: float = RATE_PER_SECOND,
                 burst: float = RATE_BURST, poll_every: float = POLL_EVERY,
                 clock: Callable[[], float] = time.monotonic, link_bytes: int = LINK_BYTES) -> None:
        self.peer = peer
        self.link_bytes = link_bytes
        self.most_queued: dict[int, int] = {}  # the most bytes that waited on a link, per seat
        self.overflowed = 0  # links closed because the other side did not read
        self.table_id = table_id
        self.rate = rate
        self.burst = burst
        self.poll_every = poll_every
        self.clock = clock
        self.key = public_bytes(peer.identity)
        self.keys: list[bytes] = []
        self.addresses: list[tuple[str, int] | None] = []
        self.links: dict[int, Link] = {}
        # Bots this machine runs for seats whose own machine went away (see add_local): they
        # have no links of their own; messages reach them and leave them through this peer.
        self.locals: dict[int, Peer] = {}
        self.refused = 0  # links closed for a bad handshake or bad frames (for tests and logs)
        self.linked = 0  # links authenticated so far, redials included
        self.holds: dict[int, int] = {}  # how many entries each seat has shown it holds
        self.unlinked_at: dict[int, float] = {}  # when each seat's last link closed
        self._started_at = 0.0  # when run() started: a seat never linked counts as unlinked then
        self._ready = asyncio.Event()
        self._closing = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._session: aiohttp.ClientSession | None = None
        self._tls: ssl.SSLContext | None = None

    # ------------------------------------------------------------------ set-up

    def seat_table(self, keys: list[bytes], addresses: list[tuple[str, int] | None]) -> None:
        """The seated keys and where each seat listens (None for this seat or unknown)."""
        self.keys = list(keys)
        self.addresses = list(addresses)
        self._ready.set()

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        """The aiohttp handler of an incoming link (this peer is the listener)."""
        socket = web.WebSocketResponse(max_msg_size=MAX_MESSAGE_BYTES + 1, heartbeat=HEARTBEAT)
        try:
            await socket.prepare(request)
        except (ConnectionError, OSError, aiohttp.ClientError):
            return socket  # the connection broke during the upgrade (the network's doing)
        try:
            if self._closing:
                raise HandshakeFailed("this peer is leaving the table")
            # A lower seat may dial before this peer has read the roster: wait for it a little.
            await asyncio.wait_for(self._ready.wait(), HANDSHAKE_TIMEOUT)
            seat = await asyncio.wait_for(self._handshake(socket, dialler=False), HANDSHAKE_TIMEOUT)
            # The key proven in the handshake must be the one the dialler's TLS certificate
            # carries: the link's encryption is then bound to that seat.
            require_key(request.transport and request.transport.get_extra_info("ssl_object"),
                        self.keys[seat], f"seat {seat + 1}")
        except (ProtocolError, TimeoutError, aiohttp.ClientError, OSError):
            self.refused += 1
            await socket.close(code=CLOSE_POLICY, message=b"handshake failed")
            return socket
        try:
            await self._serve(Link(seat, socket, self.link_bytes))
        except Exception as err:  # a broken link must never reach the screen
            logger.info("link to seat %d: %s: %s", seat + 1, type(err).__name__, err)
        return socket

    # ----------------------------------------------------------------- running

    async def run(self, until: Callable[[], bool], linger: float = LINGER) -> None:
        """Dial the higher seats, poll the peer and pump messages until ``until()`` holds; then
        stay, ``linger`` seconds at most, until every other seat holds the whole log, saying
        every ``resend_after`` that this peer holds it (a peer frozen on a violation stays
        :data:`LINGER_STOPPED` at most, while it has links)."""
        await self._ready.wait()
        self._started_at = self.clock()
        self._session = aiohttp.ClientSession()
        self._tls = client_context(self.peer.identity)
        for seat in range(self.peer.seat + 1, len(self.keys)):
            self._spawn(self._dial(seat))
        try:
            while not until():
                self.poll()
                self.pump()
                await asyncio.sleep(self.poll_every)
            self.pump()
            finished = self.peer.finished
            deadline = self.clock() + (linger if finished else min(linger, LINGER_STOPPED))
            told: float | None = None
            while self.clock() < deadline and (finished or self.links):
                now = self.clock()
                if finished and self._everybody_holds_it(now):
                    break
                self.poll()
                if finished and (told is None or now - told >= self.peer.resend_after):
                    told = now  # "I hold it all", for the seats that do not know it yet
                    for link in self.links.values():
                        link.put(encode_want(len(self.peer.log)))
                self.pump()
                await asyncio.sleep(self.poll_every)
        finally:
            await self.close()

    def poll(self) -> None:
        """Let time pass for the peer and its local bots."""
        now = self.clock()
        self.peer.poll(now)
        for local in list(self.locals.values()):
            local.poll(now)

    def unlinked_for(self, seats: Iterable[int], now: float) -> float:
        """How long none of ``seats`` has had a link up to this peer: 0 while one has, and
        since :meth:`run` started for seats never linked."""
        since = self._started_at
        for seat in seats:
            if seat in self.links:
                return 0.0
            since = max(since, self.unlinked_at.get(seat, since))
        return max(0.0, now - since)

    def add_local(self, peer: Peer) -> None:
        """Carry messages for ``peer``, a bot this machine runs in place of a seat whose
        machine went away: it hears everything this peer sends, and what it sends goes to this
        peer (which relays its entries once accepted, like any other). Its links are this
        machine's: up to this peer and the other bots it carries, and to every linked seat."""
        now = self.clock()
        self.locals[peer.seat] = peer
        for seat in (self.peer.seat, *self.locals, *self.links):
            if seat != peer.seat:
                peer.linked(seat, True, now)
        for other in self.locals.values():
            if other is not peer:
                other.linked(peer.seat, True, now)

    def _report_link(self, seat: int, up: bool) -> None:
        """Tell the peer, and the bots it carries, that the link to ``seat`` went up or down:
        this alone decides when a machine counts as away (PROTOCOL §4.13)."""
        now = self.clock()
        self.peer.linked(seat, up, now)
        for local in self.locals.values():
            if local.seat != seat:
                local.linked(seat, up, now)

    def pump(self) -> None:
        """Queue the peer's outgoing messages on the links they are for, and pass messages
        between it and its local bots until they have nothing more to say."""
        now = self.clock()
        for _ in range(64):  # a bound: each round is one step of a conversation in memory
            moved = False
            for dest, data in self.peer.take_outbox():
                moved = True
                targets = [dest] if dest is not None else list(dict.fromkeys([*self.links, *self.locals]))
                for seat in targets:
                    # A seat this machine carries may have a link too: its own machine came
                    # back (or never really left) and is catching up. Both get what is for
                    # the seat: a want's answer, an entry, an agreement say nothing secret,
                    # and the machine left behind needs them to find the away entry (§6.6).
                    local = self.locals.get(seat)
                    if local is not None:
                        local.receive(data, self.peer.seat, now)
                    if (link := self.links.get(seat)) is not None and seat != self.peer.seat:
                        link.put(data)
            for local in list(self.locals.values()):
                for dest, data in local.take_outbox():
                    moved = True
                    targets = [dest] if dest is not None else [self.peer.seat, *self.locals]
                    for seat in targets:
                        if seat == self.peer.seat:
                            self.peer.receive(data, local.seat, now)
                        elif seat != local.seat and (other := self.locals.get(seat)) is not None:
                            other.receive(data, local.seat, now)
            if not moved:
                return

    async def flush(self, timeout: float) -> None:
        """Wait, ``timeout`` seconds at most, until every link has sent what is queued on it:
        a last word (a player leaving, PROTOCOL 6.2.2) goes out before the links close."""
        # The loop's own time, not the mesh's clock (a test may drive that by hand), and a
        # pause of its own: at most ``timeout`` of real time, whatever the mesh polls at.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while any(link.queued for link in self.links.values()) and loop.time() < deadline:
            await asyncio.sleep(min(max(self.poll_every, 0.01), timeout))

    async def close(self) -> None:
        """Close every link and stop dialling."""
        self._closing = True
        for link in list(self.links.values()):
            with contextlib.suppress(Exception):
                await link.socket.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._session is not None:
            await self._session.close()

    # --------------------------------------------------------------- internals

    def _everybody_holds_it(self, now: float) -> bool:
        """Whether every other seat that is still around has shown that it holds this peer's
        whole log. The bots this machine carries hold it (they share its log), but the machine
        of a seat it carries is waited for too while it is linked: it came back and may still
        be catching up, and once this peer leaves it may have nobody left to ask."""
        end = len(self.peer.log)
        for seat in range(len(self.keys)):
            if seat == self.peer.seat or self.holds.get(seat, 0) >= end:
                continue
            if seat in self.locals and seat not in self.links:
                continue
            # A seat not linked yet is waited for too: a peer resumed just to write the game's
            # last entry must not leave before anybody has it.
            if seat in self.links or now - self.unlinked_at.get(seat, self._started_at) < GONE_AFTER:
                return False
        return True

    def _held(self, seat: int, kind: int, value: Any) -> None:
        """Note what a frame from ``seat`` shows that it holds: a want from position n, the
        first n entries; an entry this peer has too, every entry up to it."""
        if kind == WANT:
            held = value
        elif kind == ENTRY:
            try:
                entry = parse_entry(value)
            except BadEntry:
                return
            log = self.peer.log
            if not (entry.seq < len(log) and log[entry.seq].hash == entry.hash):
                return
            held = entry.seq + 1
        else:
            return  # chat and agreements say nothing of the log
        self.holds[seat] = max(self.holds.get(seat, 0), held)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _dial(self, seat: int) -> None:
        backoff = BACKOFF_FIRST
        while not self._closing:
            address = self.addresses[seat] if seat < len(self.addresses) else None
            if address is not None:
                host, port = address
                assert self._session is not None and self._tls is not None
                try:
                    async with self._session.ws_connect(url_for(host, port, MESH_PATH),
                                                        max_msg_size=MAX_MESSAGE_BYTES + 1,
                                                        heartbeat=HEARTBEAT, ssl=self._tls) as socket:
                        # The listener's certificate must carry the key the roster seats
                        # there: pinned before a single frame is sent.
                        require_key(socket.get_extra_info("ssl_object"), self.keys[seat],
                                    f"seat {seat + 1}")
                        got = await asyncio.wait_for(self._handshake(socket, dialler=True),
                                                     HANDSHAKE_TIMEOUT)
                        if got != seat:
                            raise HandshakeFailed(f"seat {seat + 1}'s address answers with another key")
                        backoff = BACKOFF_FIRST
                        await self._serve(Link(seat, socket, self.link_bytes))
                except (ProtocolError, TimeoutError, aiohttp.ClientError, OSError):
                    pass  # the seat is not up yet, or went away: try again after the backoff
                except Exception as err:  # logged, and dialled again
                    logger.info("link to seat %d: %s: %s", seat + 1, type(err).__name__, err)
            await asyncio.sleep(backoff)
            backoff = min(BACKOFF_MAX, backoff * 2)

    async def _handshake(self, socket: Socket, dialler: bool) -> int:
        """Prove this key, check the other's; the other's seat."""
        mine = os.urandom(CHALLENGE_BYTES)
        await socket.send_bytes(self.key + mine)
        hello = await self._binary(socket)
        if len(hello) != HELLO_BYTES:
            raise HandshakeFailed("a hello is a key and a challenge")
        theirs_key, theirs = hello[:PUBLIC_KEY_BYTES], hello[PUBLIC_KEY_BYTES:]
        if theirs_key not in self.keys or theirs_key == self.key:
            raise HandshakeFailed("the key is not seated at this table")
        if dialler:
            message = hello_message(self.table_id, mine, theirs, self.key, theirs_key)
        else:
            message = hello_message(self.table_id, theirs, mine, theirs_key, self.key)
        await socket.send_bytes(sign(self.peer.identity, Domain.HANDSHAKE, message))
        proof = await self._binary(socket)
        try:
            valid = len(proof) == SIGNATURE_BYTES and verify(public_key(theirs_key), Domain.HANDSHAKE,
                                                               message, proof)
        except BadEntry:  # a weak or malformed key
            valid = False
        if not valid:
            raise HandshakeFailed("the proof of the key does not verify")
        return self.keys.index(theirs_key)

    @staticmethod
    async def _binary(socket: Socket) -> bytes:
        message = await socket.receive()
        if message.type != aiohttp.WSMsgType.BINARY:
            raise HandshakeFailed("the handshake is binary frames")
        data: bytes = message.data
        return data

    async def _serve(self, link: Link) -> None:
        """Carry messages on an authenticated link until it closes, its writer fails (the
        transport closed under it) or its queue overflows (the other side does not read)."""
        old = self.links.get(link.seat)
        self.links[link.seat] = link
        self.linked += 1
        self._report_link(link.seat, True)  # the peer asks for what it missed (a want) ...
        self.pump()  # ... at once: the first frame on a fresh link
        if old is not None:
            await self._shut(old.socket)
        reader = asyncio.ensure_future(self._read(link))
        writer = asyncio.ensure_future(self._write(link))
        overflow = asyncio.ensure_future(link.overflowed.wait())
        refused: str | None = None
        try:
            await asyncio.wait((reader, writer, overflow), return_when=asyncio.FIRST_COMPLETED)
            if reader.done() and not reader.cancelled():
                if (error := reader.exception()) is not None:
                    logger.info("link to seat %d broke: %s: %s", link.seat + 1,
                                type(error).__name__, error)
                else:
                    refused = reader.result()
            elif writer.done() and not writer.cancelled() and writer.exception() is not None:
                error = writer.exception()
                logger.info("link to seat %d broke while sending: %s: %s", link.seat + 1,
                            type(error).__name__, error)
            if link.overflowed.is_set():
                self.overflowed += 1
                logger.info("link to seat %d closed: more than %d bytes waited for it to read",
                            link.seat + 1, link.limit)
                # Cut, not closed politely: a close frame would wait behind what it does not read.
                self._abort(link.socket)
        finally:
            for task in (reader, writer, overflow):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            self.most_queued[link.seat] = max(self.most_queued.get(link.seat, 0), link.most)
            if self.links.get(link.seat) is link:
                del self.links[link.seat]
                self.unlinked_at[link.seat] = self.clock()
                self._report_link(link.seat, False)
            if refused is not None:
                self.refused += 1
                self.peer.faults.append(Fault(link.seat, None, f"link closed: {refused}"))
                logger.info("link to seat %d closed: %s", link.seat + 1, refused)
            if refused is None:
                await self._shut(link.socket)
            else:  # the other side learns why: the close frame carries the reason
                reason = refused.encode()[:CLOSE_REASON_BYTES].decode(errors="ignore").encode()
                await self._shut(link.socket, code=CLOSE_POLICY, message=reason)

    @staticmethod
    async def _shut(socket: Socket, **how: Any) -> None:
        """Close ``socket``, whatever state its transport is in (a second or so at most)."""
        try:
            await asyncio.wait_for(socket.close(**how), HANDSHAKE_TIMEOUT)
        except Exception as err:  # a closing transport: nothing more to do
            logger.debug("closing a link: %s: %s", type(err).__name__, err)
            Mesh._abort(socket)

    @staticmethod
    def _abort(socket: Socket) -> None:
        """Drop the connection under ``socket`` at once."""
        writer = getattr(socket, "_writer", None)
        transport = getattr(writer, "transport", None)
        if transport is not None:
            transport.abort()

    @staticmethod
    async def _write(link: Link) -> None:
        while True:
            data = await link.queue.get()
            await link.socket.send_bytes(data)
            link.queued -= len(data)
            link.sent_total += len(data)

    async def _read(self, link: Link) -> str | None:
        """Feed the link's frames to the peer; why the link broke the rules, if it did."""
        limit = RateLimit(self.rate, self.burst)
        async for message in link.socket:
            if message.type == aiohttp.WSMsgType.ERROR:
                if not isinstance(message.data, aiohttp.WebSocketError):
                    return None  # the connection failed (no pong: the machine went away): no fault
                return f"a bad frame ({message.data})"  # e.g. one over max_msg_size
            if message.type != aiohttp.WSMsgType.BINARY:
                return "a frame that is not binary"
            now = self.clock()
            if not limit.allow(now):
                return f"more than {self.rate:.0f} frames a second"
            data: bytes = message.data
            try:
                kind, value = decode_message(data)
            except ProtocolError as err:
                self.peer.receive(data, link.seat, now)  # the peer records the frame's fault
                return str(err)  # garbage costs the sender its link
            if kind == WANT and link.answering(value, now, self.peer.resend_after / 2):
                # Already answered (PROTOCOL §6.1): asking again at once gets nothing more.
                self._held(link.seat, kind, value)
                continue
            self.peer.receive(data, link.seat, now)
            self.pump()
            if kind == WANT:
                link.answered = {start: got for start, got in link.answered.items()
                                 if now - got[0] < self.peer.resend_after or link.sent_total < got[1]}
                link.answered[value] = (now, link.put_total)
            self._held(link.seat, kind, value)
        return None
