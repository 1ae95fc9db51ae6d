"""A faulty network for tests: a TCP proxy that delays bytes, cuts connections, and tampers
with the byte stream (injects, corrupts, drops), as a machine in the middle of a TLS link can.

Each :class:`TcpProxy` listens on an ephemeral port of 127.0.0.1 and stands in front of one
peer's listener: a peer started with ``--reachable-at 127.0.0.1:PROXY_PORT`` is dialled through
it. For every incoming connection the proxy dials its upstream and copies bytes both ways,
knowing nothing of what they carry (TLS, HTTP, websocket frames). The upstream may be unknown
when the proxy starts (a joiner listens on a port nobody knows in advance): ``upstream`` is then
a function that returns the address once it is known, and a connection that arrives early
waits for it a little.

Each direction of a connection is read in *chunks*, whatever one read returns (on 127.0.0.1,
about what the sender wrote at once). The first :attr:`Faults.handshake_bytes` each way (the
TLS handshake, the websocket upgrade, the mesh's hello and proof) pass untouched: a chunk is
exposed to the faults once that many bytes have passed before it. Then, with the proxy's
seeded :class:`random.Random` (one seed gives one run of faults for one run of chunks; where the
chunks fall depends on timing), each chunk:

* is dropped with probability ``drop``, otherwise
* has one byte flipped with probability ``corrupt``, and
* has 1 to 8 random bytes inserted at a random place with probability ``inject``;
* is held back with probability ``delay``, up to ``max_delay`` seconds. TCP keeps order, so a
  chunk held back holds back the chunks behind it too (each is released no earlier than the
  one before): the whole direction waits, and no chunk is ever held more than ``max_delay``.

Every ``cut_after`` exposed chunks (a number drawn anew each time), up to ``cuts`` times, the
proxy cuts the connection that carried the chunk: both sides are reset at once, and whatever
was held back is lost. The dialler then dials again.

While ``blackout`` is set, nothing is forwarded at all: every byte read, on every connection
(new ones too), is thrown away, as a network gone dark loses its packets. A test may swap a
proxy's ``faults`` at any time. A connection that lost bytes this way, or was tampered with, is
broken: over TLS its next record fails to verify and the peers drop it and redial.

The proxies run on an event loop in a thread of their own (:class:`FaultyNetwork`), since the
peers are other processes and the test waits for them with blocking calls; a test on an event
loop of its own may also ``await TcpProxy(...).start()`` there. :class:`Counts` records what was
done, so that a test can check that the faults really happened.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, fields
from typing import Any, TypeVar

Address = tuple[str, int]
Upstream = Address | Callable[[], Address | None]
T = TypeVar("T")

UPSTREAM_WAIT = 10.0  # how long an early connection waits for the upstream's address
CONNECT_TIMEOUT = 5.0
CHUNK = 65536  # the most one read takes
INJECT_MAX = 8  # the most bytes one injection inserts


@dataclass(frozen=True, slots=True)
class Faults:
    """What a proxy does to the chunks after the handshake (see the module docstring)."""

    delay: float = 0.0
    max_delay: float = 0.2
    cuts: int = 0
    cut_after: tuple[int, int] = (100, 200)  # exposed chunks, through the whole proxy
    inject: float = 0.0
    corrupt: float = 0.0
    drop: float = 0.0
    blackout: bool = False
    # Each way of each connection. A mesh link's TLS 1.3 handshake, websocket upgrade, hello
    # and proof take about 1.5 KB dialler to listener and 2.5 KB back.
    handshake_bytes: int = 4096


@dataclass(slots=True)
class Counts:
    """What a proxy saw and did, both directions of every connection together."""

    connections: int = 0  # joined to the upstream (redials included)
    refused: int = 0  # turned away: the upstream unknown in time, or unreachable
    handshake: int = 0  # chunks passed untouched at the start of a connection
    chunks: int = 0  # chunks after the handshake, each one exposed to the faults
    bytes: int = 0  # bytes written on, all chunks counted
    delayed: int = 0  # chunks held back (the ones queued behind them not counted)
    dropped: int = 0
    corrupted: int = 0  # chunks with a byte flipped
    injected: int = 0  # chunks with bytes inserted
    blacked_out: int = 0  # chunks thrown away in a blackout
    cuts: int = 0
    lost_in_cuts: int = 0  # chunks held back when their connection was cut
    broken: int = 0  # connections that ended, not cut, after losing or tampered bytes

    def __add__(self, other: Counts) -> Counts:
        return Counts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(Counts)))

    def __str__(self) -> str:
        return ", ".join(f"{f.name} {getattr(self, f.name)}" for f in fields(Counts))


class _Way:
    """One direction of a connection: chunks read from ``source`` go, faults applied, to
    ``sink``, through a queue of (when to release, chunk); None at the end (EOF)."""

    def __init__(self, link: _Link, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        self.link = link
        self.proxy = link.proxy
        self.source = source
        self.sink = sink
        self.queue: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue()
        self.passed = 0  # bytes read so far
        self.release = 0.0  # when the last chunk queued is released: nothing may go before it
        self.held = 0  # chunks queued and not yet written

    async def pump_in(self) -> None:
        """Read chunks until EOF or a cut."""
        proxy, counts, rng = self.proxy, self.proxy.counts, self.proxy.rng
        loop = asyncio.get_running_loop()
        while data := await self.source.read(CHUNK):
            faults = proxy.faults  # a test may change them as it goes
            exposed = self.passed >= faults.handshake_bytes
            self.passed += len(data)
            if faults.blackout:
                counts.blacked_out += 1
                self.link.tampered = True
                continue
            wait = 0.0
            if not exposed:
                counts.handshake += 1
            else:
                counts.chunks += 1
                data = self._tamper(data)
                if rng.random() < faults.delay:
                    counts.delayed += 1
                    wait = rng.uniform(0.0, faults.max_delay)
            if data:
                self.release = max(self.release, loop.time() + wait)
                self.queue.put_nowait((self.release, data))
                self.held += 1
            if exposed and proxy.cut_due():
                self.link.cut = True
                return
        self.queue.put_nowait(None)

    def _tamper(self, data: bytes) -> bytes:
        """The chunk dropped (empty), corrupted or with bytes injected, as the faults say."""
        faults, counts, rng = self.proxy.faults, self.proxy.counts, self.proxy.rng
        if rng.random() < faults.drop:
            counts.dropped += 1
            self.link.tampered = True
            return b""
        if rng.random() < faults.corrupt:
            counts.corrupted += 1
            at = rng.randrange(len(data))
            data = data[:at] + bytes([data[at] ^ rng.randint(1, 255)]) + data[at + 1:]
            self.link.tampered = True
        if rng.random() < faults.inject:
            counts.injected += 1
            at = rng.randint(0, len(data))
            data = data[:at] + rng.randbytes(rng.randint(1, INJECT_MAX)) + data[at:]
            self.link.tampered = True
        return data

    async def pump_out(self) -> None:
        """Write the queue to the sink, each chunk once released; pass the EOF on."""
        loop = asyncio.get_running_loop()
        while (item := await self.queue.get()) is not None:
            release, data = item
            await asyncio.sleep(release - loop.time())
            self.held -= 1
            if self.proxy.faults.blackout:
                self.proxy.counts.blacked_out += 1
                self.link.tampered = True
                continue
            self.sink.write(data)
            self.proxy.counts.bytes += len(data)
            await self.sink.drain()
        if self.sink.can_write_eof():
            self.sink.write_eof()


class _Link:
    """One proxied connection: the dialler's stream (``down``) and the upstream's (``up``)."""

    def __init__(self, proxy: TcpProxy, down: tuple[asyncio.StreamReader, asyncio.StreamWriter],
                 up: tuple[asyncio.StreamReader, asyncio.StreamWriter]) -> None:
        self.proxy = proxy
        self.writers = (down[1], up[1])
        self.ways = (_Way(self, down[0], up[1]), _Way(self, up[0], down[1]))
        self.cut = False
        self.tampered = False  # bytes lost (dropped, blacked out), corrupted or injected

    async def run(self) -> None:
        """Copy both ways until both have ended, one side fails, or the proxy cuts it."""
        pending = {asyncio.ensure_future(pump()) for way in self.ways for pump in (way.pump_in, way.pump_out)}
        failed = False
        try:
            while pending and not self.cut and not failed:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                failed = any(not task.cancelled() and task.exception() is not None for task in done)
        finally:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            counts = self.proxy.counts
            if self.cut:
                counts.cuts += 1
                counts.lost_in_cuts += sum(way.held for way in self.ways)
            elif self.tampered:
                counts.broken += 1
            for writer in self.writers:
                if self.cut or failed:
                    writer.transport.abort()  # a reset: nothing more gets through
                else:
                    writer.close()


class TcpProxy:
    """One faulty proxy in front of one peer's listener (create with :meth:`FaultyNetwork.proxy`,
    or start it on a loop of one's own). ``port`` is where it listens; ``counts`` what it did."""

    def __init__(self, upstream: Upstream, faults: Faults, seed: int) -> None:
        self.upstream = upstream
        self.faults = faults
        self.rng = random.Random(seed)
        self.counts = Counts()
        self.port = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._cuts_made = 0
        self._next_cut = self._draw_cut()

    def _draw_cut(self) -> int:
        low, high = self.faults.cut_after
        return self.counts.chunks + self.rng.randint(low, high)

    def cut_due(self) -> bool:
        """Whether the chunk just read is the one after which its connection is cut."""
        if self._cuts_made >= self.faults.cuts or self.counts.chunks < self._next_cut:
            return False
        self._cuts_made += 1
        self._next_cut = self._draw_cut()
        return True

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        """Stop listening and reset every connection."""
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

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

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        link: _Link | None = None
        try:
            address = await self._address()
            try:
                if address is None:
                    raise ConnectionRefusedError("the proxy does not know its upstream yet")
                up = await asyncio.wait_for(asyncio.open_connection(*address), CONNECT_TIMEOUT)
            except (OSError, TimeoutError):
                self.counts.refused += 1
                writer.transport.abort()
                return
            self.counts.connections += 1
            link = _Link(self, (reader, writer), up)
            await link.run()
        except asyncio.CancelledError:
            # The proxy stops: reset both sides, and end quietly (asyncio's server would
            # otherwise report a handler that ended cancelled).
            writer.transport.abort()
            if link is not None:
                link.writers[1].transport.abort()
        finally:
            self._tasks.discard(task)


class FaultyNetwork:
    """Faulty proxies on an event loop in a thread of their own::

        with FaultyNetwork() as network:
            proxy = network.proxy(("127.0.0.1", 8000), Faults(inject=0.01), seed=1)
            ...  # peers dial 127.0.0.1:proxy.port
        print(proxy.counts)
    """

    def __init__(self) -> None:
        self.proxies: list[TcpProxy] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="faulty-network", daemon=True)

    def __enter__(self) -> FaultyNetwork:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _call(self, coroutine: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def proxy(self, upstream: Upstream, faults: Faults, seed: int) -> TcpProxy:
        """A new proxy in front of ``upstream`` (an address, or a function that returns it once
        it is known), listening on an ephemeral port of 127.0.0.1."""
        assert self._thread.is_alive(), "use the network in a with block"
        proxy = TcpProxy(upstream, faults, seed)
        self._call(proxy.start())
        self.proxies.append(proxy)
        return proxy

    def total(self) -> Counts:
        """Every proxy's counts added up."""
        return sum((proxy.counts for proxy in self.proxies), Counts())

    def close(self) -> None:
        """Stop every proxy (their connections are reset) and the thread."""
        if not self._thread.is_alive():
            return

        async def stop() -> None:
            await asyncio.gather(*(proxy.stop() for proxy in self.proxies), return_exceptions=True)

        try:
            with contextlib.suppress(TimeoutError):
                self._call(stop())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self._loop.close()
