"""A peer's listening port: the lobby, mesh, watch and table routes under TLS 1.3, behind a
door that bounds how many connections one machine, and all together, can hold, and how long a
connection may take to become a link.

Every websocket route bounds what a link may do once it is one (the mesh handshake within
:data:`~protocol.mesh.HANDSHAKE_TIMEOUT`, the lobby's and the spectator's first frames and a
private table's code within :data:`~protocol.lobby.CODE_TIMEOUT`, at most ``cap`` spectators).
Before that a connection proves nothing: the TLS handshake and the HTTP upgrade request come
first, and left to themselves ``asyncio`` holds a TCP connection that never says hello for
60 s, and aiohttp one that finished TLS, or had a plain request answered, for about an hour. A
stranger on the network could so hold a thousand idle connections and leave the peer with no
file descriptor for a seat that dials back after its link broke. Here:

* every connection, from its accept until it closes, counts against its source address, in
  the whole process (a host's listener and its bots' share the file descriptors): a new one
  beyond :data:`OPEN_PER_SOURCE` from one source, or :data:`OPEN_AT_ALL` from all together, is
  closed at once, before TLS (which this module starts itself, after the count);
* once the table has started, the listener knows the roster's keys (:meth:`Door.reserve_for`):
  a connection beyond the limits is then taken *on probation*, up to :data:`RESERVE` of them,
  and must prove one of those keys in its TLS handshake (its certificate: every seat dials
  with its key's), or it is closed when the handshake ends; when the probation places are full,
  the oldest probation connection of the source that holds the most is closed to make room. A
  seat dialling back so always gets in, whatever strangers hold (attack A60);
* a connection must become a websocket link (HTTP 101) within :data:`UPGRADE_WITHIN` seconds
  of its accept, TLS handshake and request included, or it is closed;
* a plain answer (``GET /table``, a refusal, an error) closes its connection;
* a connection that takes nothing that is sent to it for :data:`STALLED_WITHIN` seconds (its
  reader's window shut: a link's close waits on that without end) is closed; and TLS waits
  :data:`CLOSING_WITHIN` seconds at most for the other end's goodbye once a link ends.

Honest peers are far inside these limits: a link is up in milliseconds, and one machine holds a
handful of links to another.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import ssl
from collections import Counter
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.tls import BadCertificate, peer_key, server_context

Handler = Callable[[web.Request], Coroutine[Any, Any, web.StreamResponse]]
"""A route's handler: aiohttp's."""

OPEN_PER_SOURCE = 64
"""Connections one source address may hold open at once, links included."""
OPEN_AT_ALL = 512
"""Connections all sources together may hold open at once: half the 1024 file descriptors a
process has by default, so that the peer keeps some for its files and its own dialling."""
UPGRADE_WITHIN = 15.0
"""Seconds a connection has from its accept to become a websocket link (longer than the 10 s a
listener waits for its mesh before it answers 503)."""
IDLE_WITHIN = 10.0
"""Seconds aiohttp keeps a connection whose TLS is up waiting for its request (its own timer:
such a connection is closed by it before :data:`UPGRADE_WITHIN`)."""
STALLED_WITHIN = 30.0
"""Seconds a connection may go without taking any of what is sent to it (writing paused, never
resumed): an honest peer that reads at all takes some within that; a machine asleep is away."""
CLOSING_WITHIN = 5.0
"""Seconds TLS waits for the other end's goodbye (close_notify) when a connection ends (30 s
by ``asyncio``'s default)."""
RESERVE = 32
"""Connections a door takes beyond the limits once its table has started (:meth:`Door.reserve_for`),
on probation: each must prove a key of the roster in its TLS handshake, or is closed."""


class Ledger:
    """The connections open by source, for every listener of a process: their file descriptors
    are the process's."""

    def __init__(self) -> None:
        self.open: Counter[str] = Counter()


PROCESS = Ledger()
"""The process's ledger, which every :class:`Door` keeps by default."""


def source_of(peername: object) -> str:
    """Whom a connection is counted against: its address (an IPv4 client of a dual-stack
    socket by its IPv4 address), or ``"?"`` when unknown. An IPv6 address counts alone, not by
    its /64: on a LAN every machine shares the network's /64 (and every link-local address is in
    ``fe80::/64``); one machine that takes many addresses meets :data:`OPEN_AT_ALL`."""
    if not isinstance(peername, tuple) or not peername:
        return "?"
    try:
        address = ipaddress.ip_address(str(peername[0]).partition("%")[0])
    except ValueError:
        return "?"
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


class Door:
    """The connections a listener holds, by source (:func:`source_of`): :attr:`open` counts
    them (and ``ledger``, :data:`PROCESS` by default, those of every door that keeps it, against
    which the limits hold), :attr:`refused` those closed at once for being over a limit (no
    roster yet), :attr:`probation` those over a limit that must prove a roster key,
    :attr:`evicted` those closed to make room on probation,
    :attr:`expired` those closed for not becoming a link within :data:`UPGRADE_WITHIN`,
    :attr:`stalled` those closed for taking nothing for :data:`STALLED_WITHIN`."""

    def __init__(self, ledger: Ledger | None = None) -> None:
        self.ledger = ledger if ledger is not None else PROCESS
        self.open: Counter[str] = Counter()
        self.refused = 0
        self.expired = 0
        self.stalled = 0
        self.closed = False
        self.evicted = 0
        self.roster: frozenset[bytes] = frozenset()
        self.probation: list[_Connection] = []  # beyond the limits, unproven: oldest first
        self._connections: set[_Connection] = set()
        self._by_handler: dict[object, _Connection] = {}

    def reserve_for(self, keys: Iterable[bytes]) -> None:
        """The table has started with these keys: a connection beyond the limits may still
        come in, on probation, to prove one of them (:data:`RESERVE`)."""
        self.roster = frozenset(keys)

    @property
    def upgrading(self) -> int:
        """Connections not yet a link."""
        return sum(1 for connection in self._connections if connection.deadline is not None)

    def enter(self, connection: _Connection) -> bool:
        """Count a new connection, or False (and count it refused) when its source, or
        everybody together, holds as many as allowed, or the listener has stopped."""
        source = connection.source
        held = self.ledger.open
        over = held[source] >= OPEN_PER_SOURCE or held.total() >= OPEN_AT_ALL
        if self.closed or (over and not self.roster):
            self.refused += 1
            return False
        if over:
            if len(self.probation) >= RESERVE:
                self.evicted += 1
                self._victim().abort()
            connection.on_probation = True
            self.probation.append(connection)
        held[source] += 1
        self.open[source] += 1
        self._connections.add(connection)
        return True

    def leave(self, connection: _Connection) -> None:
        """``connection`` has closed."""
        self._connections.discard(connection)
        if connection.on_probation:
            connection.on_probation = False
            self.probation.remove(connection)
        for held in (self.open, self.ledger.open):
            held[connection.source] -= 1
            if held[connection.source] <= 0:
                del held[connection.source]

    def _victim(self) -> _Connection:
        """The probation connection to close for a newcomer: the oldest of the source that
        holds the most, so that a flood from few sources makes room from its own, and a seat's
        one connection goes only when every source holds as few."""
        counts = Counter(connection.source for connection in self.probation)
        most = max(counts.values())
        return next(c for c in self.probation if counts[c.source] == most)

    def proven(self, connection: _Connection, key: bytes | None) -> bool:
        """``connection`` finished its TLS handshake with a certificate for ``key`` (None: no
        readable one): False if it is on probation and that is no roster key (close it); a
        roster key ends its probation, and it holds its place as any connection."""
        if not connection.on_probation:
            return True
        connection.on_probation = False
        self.probation.remove(connection)
        return key is not None and key in self.roster

    def expect(self, handler: object, connection: _Connection) -> None:
        """``connection``'s requests are read by ``handler`` (aiohttp's, a request's
        ``protocol``) now: :meth:`prepared` finds it by that."""
        self._by_handler[handler] = connection

    def forget(self, handler: object) -> None:
        """``handler``'s connection has closed."""
        self._by_handler.pop(handler, None)

    async def prepared(self, request: web.Request, response: web.StreamResponse) -> None:
        """aiohttp's ``on_response_prepare``: a websocket upgrade makes the connection a link
        (no deadline any more); any other answer closes the connection once it is sent."""
        if response.status == 101:
            connection = self._by_handler.get(request.protocol)
            if connection is not None:
                connection.upgraded()
        else:
            response.force_close()

    def close(self) -> None:
        """Refuse every new connection, and close those not yet a link (the listener stops;
        the links are the runner's to close)."""
        self.closed = True
        for connection in list(self._connections):
            if connection.deadline is not None:
                connection.abort()


def _key_of(tls: asyncio.BaseTransport) -> bytes | None:
    """The key the other end's certificate carries, or None (none, or one that cannot be
    read)."""
    try:
        return peer_key(tls.get_extra_info("ssl_object"))
    except BadCertificate:
        return None


class _Connection(asyncio.Protocol):
    """One accepted connection: counted, then TLS (started here, after the count, so that a
    refused one costs no handshake), then aiohttp's request handler, to which every event is
    passed on. A deadline runs until the connection is a websocket link."""

    def __init__(self, door: Door, context: ssl.SSLContext,
                 make_handler: Callable[[], asyncio.Protocol]) -> None:
        self.door = door
        self.context = context
        self.make_handler = make_handler
        self.source = "?"
        self.counted = False
        self.closed = False
        self.raw: asyncio.Transport | None = None
        self.handler: asyncio.Protocol | None = None
        self.deadline: asyncio.TimerHandle | None = None
        self.stall: asyncio.TimerHandle | None = None
        self.upgrading: asyncio.Task[None] | None = None
        self.early: list[bytes] = []
        self.on_probation = False  # over the limits: must prove a roster key in TLS

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.raw = transport
        self.source = source_of(transport.get_extra_info("peername"))
        if not self.door.enter(self):
            transport.abort()
            return
        self.counted = True
        # Nothing is read before TLS takes the connection over: a ClientHello read here
        # would be lost to it.
        transport.pause_reading()
        loop = asyncio.get_running_loop()
        self.deadline = loop.call_later(UPGRADE_WITHIN, self._expire)
        self.upgrading = loop.create_task(self._upgrade(transport))

    async def _upgrade(self, raw: asyncio.Transport) -> None:
        loop = asyncio.get_running_loop()
        try:
            tls = await loop.start_tls(raw, self, self.context, server_side=True,
                                       ssl_handshake_timeout=UPGRADE_WITHIN,
                                       ssl_shutdown_timeout=CLOSING_WITHIN)
        except (TimeoutError, OSError, ConnectionError, RuntimeError):
            # No TLS (a scan, a client that gave up, a handshake that failed): nobody's link.
            self.abort()
            return
        if tls is None or self.closed:
            self.abort()
            return
        if self.on_probation and not self.door.proven(self, _key_of(tls)):
            self.abort()
            return
        handler = self.make_handler()
        self.door.expect(handler, self)
        handler.connection_made(tls)
        # TLS hands over what came with the handshake before this task resumes: the request.
        for data in self.early:
            handler.data_received(data)
        self.early.clear()
        self.handler = handler

    def upgraded(self) -> None:
        """The connection is a websocket link now: no deadline (its route bounds what it may
        do, and a link that stalls is closed all the same)."""
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def _expire(self) -> None:
        self.deadline = None
        self.door.expired += 1
        self.abort()

    def abort(self) -> None:
        """Close the connection at once."""
        upgrading = self.upgrading
        if upgrading is not None and not upgrading.done() and upgrading is not asyncio.current_task():
            upgrading.cancel()
        if self.raw is not None:
            self.raw.abort()
        self._release()

    def _release(self) -> None:
        self.upgraded()
        if self.stall is not None:
            self.stall.cancel()
            self.stall = None
        if self.handler is not None:
            self.door.forget(self.handler)
        if self.counted:
            self.counted = False
            self.door.leave(self)

    # Every event from here on is the request handler's (once TLS is up, the only events). An
    # end of input before the handler has started closes the connection: no request is in
    # flight then, whatever came with the handshake aside.
    def data_received(self, data: bytes) -> None:
        if self.handler is not None:
            self.handler.data_received(data)
        else:
            self.early.append(data)

    def eof_received(self) -> bool | None:
        return self.handler.eof_received() if self.handler is not None else None

    def pause_writing(self) -> None:
        if self.stall is None and self.counted:
            self.stall = asyncio.get_running_loop().call_later(STALLED_WITHIN, self._stalled)
        if self.handler is not None:
            self.handler.pause_writing()

    def resume_writing(self) -> None:
        if self.stall is not None:
            self.stall.cancel()
            self.stall = None
        if self.handler is not None:
            self.handler.resume_writing()

    def _stalled(self) -> None:
        self.stall = None
        self.door.stalled += 1
        self.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._release()
        if self.handler is not None:
            handler, self.handler = self.handler, None
            handler.connection_lost(exc)


class _Site(web.BaseSite):
    """aiohttp's TCP site with the door in front: the server's connections are
    :class:`_Connection` objects, which start TLS themselves."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, context: ssl.SSLContext,
                 door: Door) -> None:
        super().__init__(runner)
        self._host = host
        self._port = port
        self._context = context
        self._door = door

    @property
    def name(self) -> str:
        """The site's address, as aiohttp names its sites."""
        return f"https://{self._host}:{self._port}"

    async def start(self) -> None:
        """Listen (the runner's :attr:`~aiohttp.web.BaseRunner.addresses` name the port)."""
        await super().start()
        server = self._runner.server
        assert server is not None
        loop = asyncio.get_running_loop()
        # BaseSite.stop closes self._server, and the runner's addresses read it, as for
        # aiohttp's own sites.
        self._server = await loop.create_server(
            lambda: _Connection(self._door, self._context, server), self._host, self._port)

    async def stop(self) -> None:
        """Stop accepting, and close the connections not yet a link (the links are the
        runner's to close)."""
        self._door.close()
        await super().stop()


async def listen(routes: dict[str, Handler], host: str, port: int = 0, *,
                 identity: Ed25519PrivateKey, door: Door | None = None) -> tuple[web.AppRunner, int]:
    """Serve ``routes`` on ``host``:``port`` (0: an ephemeral port) under TLS 1.3, presenting
    ``identity``'s certificate (:mod:`protocol.tls`), behind ``door`` (a new :class:`Door` by
    default); the runner (to ``cleanup()``) and the port actually bound."""
    door = door if door is not None else Door()
    app = web.Application()
    for path, handler in routes.items():
        app.router.add_get(path, handler)
    app.on_response_prepare.append(door.prepared)
    # When a peer stops listening every link has had its say (the mesh lingers, the spectators
    # are drained first): aiohttp gives the handlers still running 2 s, and the connections 2 s
    # more, not a minute each.
    runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=2.0,
                           keepalive_timeout=IDLE_WITHIN)
    await runner.setup()
    site = _Site(runner, host, port, server_context(identity), door)
    try:
        await site.start()
    except BaseException:
        with contextlib.suppress(Exception):
            await runner.cleanup()
        raise
    bound = runner.addresses[0][1]
    return runner, int(bound)
