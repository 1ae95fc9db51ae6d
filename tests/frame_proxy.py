"""A faulty network for tests: a websocket proxy that drops, duplicates, delays (and so reorders)
frames and now and then cuts a whole connection.

Each :class:`FrameProxy` listens on an ephemeral port of 127.0.0.1 and stands in front of one
peer's mesh listener: a peer started with ``--reachable-at 127.0.0.1:PROXY_PORT`` is dialled
through it. For every incoming websocket the proxy dials its upstream (``/mesh`` of the real
listener) and forwards frames both ways. The upstream may be unknown when the proxy starts (a
joiner listens on a port nobody knows in advance): ``upstream`` is then a function that returns
the address once it is known, and a link that arrives early waits for it a little.

The first :attr:`Faults.handshake` frames each way (the mesh's hello and proof) pass untouched.
After them, each frame, with the proxy's seeded :class:`random.Random`:

* is dropped with probability ``drop``;
* otherwise is sent twice with probability ``duplicate``;
* each copy is held back with probability ``delay`` for a uniform 0 to ``max_delay`` seconds, so
  that the frames behind it overtake it (every direction has one writer fed by a queue: a frame
  held back joins the queue late).

Every ``cut_after`` frames (a number drawn anew each time), up to ``cuts`` times, the proxy cuts
the connection that carried the frame: both websockets are closed at once (code 1001) and
whatever was queued or held back is lost. The dialler then dials again. A connection that one
side closes itself is closed on the other side once the frames already on their way have
arrived, with the same close code and reason.

Pings are answered by the proxy on each side (aiohttp's autoping), not passed through: a link
whose frames are all dropped (``Faults(drop=1.0)``, a blackout; a test may swap a proxy's
``faults`` at any time) still looks alive to the peers' heartbeats.

The proxies run on an event loop in a thread of their own (:class:`FaultyNetwork`), since the
peers are other processes and the test waits for them with blocking calls. :class:`Counts`
records what was done, so that a test can check that the faults really happened.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, fields
from typing import Any, TypeVar

import aiohttp
from aiohttp import web

from protocol.mesh import MESH_PATH, url_for

Address = tuple[str, int]
Upstream = Address | Callable[[], Address | None]
Socket = web.WebSocketResponse | aiohttp.ClientWebSocketResponse
T = TypeVar("T")

UPSTREAM_WAIT = 10.0  # how long an early link waits for the upstream's address
CONNECT_TIMEOUT = 5.0
DRAIN_TIMEOUT = 2.0  # beyond max_delay: frames on their way when one side closes
FORWARDED = (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT)


@dataclass(frozen=True, slots=True)
class Faults:
    """What a proxy does to the frames after the handshake (see the module docstring)."""

    drop: float = 0.0
    duplicate: float = 0.0
    delay: float = 0.0
    max_delay: float = 0.2
    cuts: int = 0
    cut_after: tuple[int, int] = (100, 200)
    handshake: int = 2


@dataclass(slots=True)
class Counts:
    """What a proxy saw and did, both directions of every link together."""

    connections: int = 0  # links joined to the upstream (redials included)
    refused: int = 0  # links turned away: the upstream unknown in time, or unreachable
    handshake: int = 0  # frames passed untouched at the start of a link
    frames: int = 0  # frames after the handshake, each one exposed to the faults
    dropped: int = 0
    duplicated: int = 0  # frames sent twice
    delayed: int = 0  # copies held back
    reordered: int = 0  # frames sent after a frame that came in later on the same link and way
    cuts: int = 0
    lost_in_cuts: int = 0  # frames queued or held back when their link was cut

    def __add__(self, other: Counts) -> Counts:
        return Counts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(Counts)))

    def __str__(self) -> str:
        return ", ".join(f"{f.name} {getattr(self, f.name)}" for f in fields(Counts))


class _Way:
    """One direction of a link: frames read from ``source`` go, faults applied, to ``sink``."""

    def __init__(self, proxy: FrameProxy, link: _Link, source: Socket, sink: Socket) -> None:
        self.proxy = proxy
        self.link = link
        self.source = source
        self.sink = sink
        self.queue: asyncio.Queue[tuple[int, aiohttp.WSMessage]] = asyncio.Queue()
        self.held: set[asyncio.TimerHandle] = set()
        self.sending = 0  # frames taken from the queue and not yet written
        self.read = 0
        self.highest_sent = -1
        self.close: tuple[int, str] | None = None  # the code and reason the source closed with

    @property
    def pending(self) -> int:
        return self.queue.qsize() + len(self.held) + self.sending

    def _release(self, handle_box: list[asyncio.TimerHandle], item: tuple[int, aiohttp.WSMessage]) -> None:
        self.held.discard(handle_box[0])
        self.queue.put_nowait(item)

    def _send_later(self, delay: float, item: tuple[int, aiohttp.WSMessage]) -> None:
        box: list[asyncio.TimerHandle] = []
        handle = asyncio.get_running_loop().call_later(delay, self._release, box, item)
        box.append(handle)
        self.held.add(handle)

    async def pump_in(self) -> None:
        """Read frames until the source closes or the link is cut."""
        proxy, counts, rng = self.proxy, self.proxy.counts, self.proxy.rng
        while True:
            message = await self.source.receive()
            faults = proxy.faults  # a test may change them as it goes
            if message.type not in FORWARDED:
                if message.type == aiohttp.WSMsgType.CLOSE:
                    self.close = (int(message.data), str(message.extra or ""))
                return
            index, self.read = self.read, self.read + 1
            if index < faults.handshake:
                counts.handshake += 1
                self.queue.put_nowait((index, message))
                continue
            counts.frames += 1
            if rng.random() < faults.drop:
                counts.dropped += 1
            else:
                copies = 1
                if rng.random() < faults.duplicate:
                    counts.duplicated += 1
                    copies = 2
                for _ in range(copies):
                    if rng.random() < faults.delay:
                        counts.delayed += 1
                        self._send_later(rng.uniform(0.0, faults.max_delay), (index, message))
                    else:
                        self.queue.put_nowait((index, message))
            if proxy.cut_due():
                self.link.cut = True
                return

    async def pump_out(self) -> None:
        """Write the queue to the sink, in queue order (which is not always the order read)."""
        while True:
            index, message = await self.queue.get()
            self.sending += 1
            try:
                if index < self.highest_sent:
                    self.proxy.counts.reordered += 1
                self.highest_sent = max(self.highest_sent, index)
                if message.type == aiohttp.WSMsgType.BINARY:
                    await self.sink.send_bytes(message.data)
                else:
                    await self.sink.send_str(message.data)
            finally:
                self.sending -= 1

    async def drain(self, writer: asyncio.Future[None]) -> None:
        """Wait until the frames on their way have been written (a little, at most)."""
        deadline = asyncio.get_running_loop().time() + self.proxy.faults.max_delay + DRAIN_TIMEOUT
        while self.pending and not writer.done() and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)

    def lose(self) -> int:
        """Forget the frames queued or held back; how many."""
        lost = self.queue.qsize() + len(self.held)
        for handle in self.held:
            handle.cancel()
        self.held.clear()
        while not self.queue.empty():
            self.queue.get_nowait()
        return lost


class _Link:
    """One proxied connection: the dialler's websocket (``down``) and the upstream's (``up``)."""

    def __init__(self, proxy: FrameProxy, down: web.WebSocketResponse,
                 up: aiohttp.ClientWebSocketResponse) -> None:
        self.proxy = proxy
        self.down = down
        self.up = up
        self.cut = False
        self.ways = [_Way(proxy, self, down, up), _Way(proxy, self, up, down)]

    async def run(self) -> None:
        readers = [asyncio.ensure_future(way.pump_in()) for way in self.ways]
        writers = [asyncio.ensure_future(way.pump_out()) for way in self.ways]
        ended: _Way | None = None
        try:
            done, _ = await asyncio.wait(readers + writers, return_when=asyncio.FIRST_COMPLETED)
            for way, reader, writer in zip(self.ways, readers, writers, strict=True):
                if reader in done and not self.cut:
                    # One side closed: what it sent before closing still arrives, then the close.
                    ended = way
                    await way.drain(writer)
                    break
        finally:
            for task in readers + writers:
                task.cancel()
            await asyncio.gather(*readers, *writers, return_exceptions=True)
            if self.cut:
                self.proxy.counts.cuts += 1
                self.proxy.counts.lost_in_cuts += sum(way.lose() for way in self.ways)
            else:
                for way in self.ways:
                    way.lose()
            code, reason = (ended.close if ended is not None and ended.close is not None
                            else (aiohttp.WSCloseCode.GOING_AWAY, ""))
            for socket in (self.down, self.up):
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(socket.close(code=code, message=reason.encode()), 1.0)


class FrameProxy:
    """One faulty proxy in front of one peer's mesh listener (create with
    :meth:`FaultyNetwork.proxy`). ``port`` is where it listens; ``counts`` what it did."""

    def __init__(self, upstream: Upstream, faults: Faults, seed: int,
                 session: aiohttp.ClientSession) -> None:
        self.upstream = upstream
        self.faults = faults
        self.rng = random.Random(seed)
        self.counts = Counts()
        self.port = 0
        self._session = session
        self._runner: web.AppRunner | None = None
        self._links: set[asyncio.Future[None]] = set()
        self._cuts_made = 0
        self._next_cut = self._draw_cut()

    def _draw_cut(self) -> int:
        low, high = self.faults.cut_after
        return self.counts.frames + self.rng.randint(low, high)

    def cut_due(self) -> bool:
        """Whether the frame just read is the one after which its connection is cut."""
        if self._cuts_made >= self.faults.cuts or self.counts.frames < self._next_cut:
            return False
        self._cuts_made += 1
        self._next_cut = self._draw_cut()
        return True

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get(MESH_PATH, self._handle)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(self._runner.addresses[0][1])

    async def stop(self) -> None:
        for task in list(self._links):
            task.cancel()
        await asyncio.gather(*self._links, return_exceptions=True)
        if self._runner is not None:
            await self._runner.cleanup()

    async def _address(self) -> Address | None:
        if not callable(self.upstream):
            return self.upstream
        loop = asyncio.get_running_loop()
        deadline = loop.time() + UPSTREAM_WAIT
        while loop.time() < deadline:
            address = self.upstream()
            if address is not None:
                return address
            await asyncio.sleep(0.02)
        return None

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        address = await self._address()
        if address is None:
            self.counts.refused += 1
            return web.Response(status=503, text="the proxy does not know its upstream yet")
        try:
            up = await asyncio.wait_for(
                self._session.ws_connect(url_for(*address, MESH_PATH), max_msg_size=0),
                CONNECT_TIMEOUT)
        except (aiohttp.ClientError, OSError, TimeoutError) as err:
            self.counts.refused += 1
            return web.Response(status=502, text=f"the upstream does not answer: {err}")
        down = web.WebSocketResponse(max_msg_size=0)
        try:
            await down.prepare(request)
        except BaseException:
            await up.close()
            raise
        self.counts.connections += 1
        running = asyncio.ensure_future(_Link(self, down, up).run())
        self._links.add(running)
        running.add_done_callback(self._links.discard)
        await asyncio.gather(running, return_exceptions=True)  # cancelled when the proxy stops
        return down


class FaultyNetwork:
    """Faulty proxies on an event loop in a thread of their own::

        with FaultyNetwork() as network:
            proxy = network.proxy(("127.0.0.1", 8000), Faults(drop=0.1), seed=1)
            ...  # peers dial 127.0.0.1:proxy.port
        print(proxy.counts)
    """

    def __init__(self) -> None:
        self.proxies: list[FrameProxy] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="faulty-network", daemon=True)
        self._session: aiohttp.ClientSession | None = None

    def __enter__(self) -> FaultyNetwork:
        self._thread.start()

        async def session() -> aiohttp.ClientSession:
            return aiohttp.ClientSession()

        self._session = self._call(session())
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _call(self, coroutine: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def proxy(self, upstream: Upstream, faults: Faults, seed: int) -> FrameProxy:
        """A new proxy in front of ``upstream`` (an address, or a function that returns it once
        it is known), listening on an ephemeral port of 127.0.0.1."""
        assert self._session is not None, "use the network in a with block"
        proxy = FrameProxy(upstream, faults, seed, self._session)
        self._call(proxy.start())
        self.proxies.append(proxy)
        return proxy

    def total(self) -> Counts:
        """Every proxy's counts added up."""
        total = Counts()
        for proxy in self.proxies:
            total = total + proxy.counts
        return total

    def close(self) -> None:
        """Stop every proxy (their links are cut) and the thread."""
        if not self._thread.is_alive():
            return

        async def stop() -> None:
            await asyncio.gather(*(proxy.stop() for proxy in self.proxies), return_exceptions=True)
            if self._session is not None:
                await self._session.close()

        try:
            self._call(stop())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self._loop.close()
