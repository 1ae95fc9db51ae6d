"""What one link of the mesh may cost a peer (PROTOCOL §6.1): wants answered once, a queue
bounded in bytes, and a link whose transport breaks under it closed quietly (attacks A56, A63).

The links here are stand-in sockets, so that "never reads" and "the transport closes while
sending" are exact rather than left to the kernel's buffers."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest

from p2p10.bots import POLICIES
from p2p10.peer import WANT_BATCH, Peer, decode_message, encode_entry_message, encode_want
from p2p10.rules import RuleSet
from protocol.gallery import QUEUE_BYTES, QUEUE_LIMIT, Gallery, Spectator
from protocol.lobby import Gate
from protocol.memory import play_table
from protocol.mesh import Mesh
from protocol.mesh_link import Link


class StandInSocket:
    """A link's socket: frames come from ``inbox`` (an exception there is raised, None ends
    the link); a ``stuck`` one never finishes a send (the other side does not read); a
    ``broken`` one raises on every send and close, like a closing transport."""

    def __init__(self, stuck: bool = False, broken: Exception | None = None) -> None:
        self.inbox: asyncio.Queue[bytes | Exception | None] = asyncio.Queue()
        self.sent: list[bytes] = []
        self.stuck, self.broken = stuck, broken

    async def send_bytes(self, data: bytes) -> None:
        if self.broken is not None:
            raise self.broken
        if self.stuck:
            await asyncio.Event().wait()
        self.sent.append(data)

    async def close(self, **_how: Any) -> None:
        if self.broken is not None:
            raise self.broken

    def __aiter__(self) -> StandInSocket:
        return self

    async def __anext__(self) -> aiohttp.WSMessage:
        item = await self.inbox.get()
        if item is None:
            raise StopAsyncIteration
        if isinstance(item, Exception):
            raise item
        return aiohttp.WSMessage(aiohttp.WSMsgType.BINARY, item, None)

    async def drained(self) -> None:
        """Until every frame given so far has been read and handled."""
        while not self.inbox.empty():
            await asyncio.sleep(0)
        for _ in range(10):
            await asyncio.sleep(0)


@pytest.fixture(scope="module")
def finished_peer() -> Peer:
    run = play_table([POLICIES["greedy"]] * 3, RuleSet.parse(["hands=1"]), seed=24)
    return run.peers[0]


def serve(mesh: Mesh, seat: int, socket: StandInSocket) -> tuple[Link, asyncio.Task[None]]:
    link = Link(seat, socket)  # type: ignore[arg-type]
    link.limit = mesh.link_bytes
    return link, asyncio.ensure_future(mesh._serve(link))


async def test_a_want_repeated_at_once_is_answered_once(finished_peer: Peer) -> None:
    mesh = Mesh(finished_peer, b"t" * 16)
    socket = StandInSocket(stuck=True)
    link, task = serve(mesh, 1, socket)
    await socket.drained()
    socket.inbox.put_nowait(encode_want(0))
    await socket.drained()
    once = link.put_total
    assert once >= sum(len(encode_entry_message(e.raw)) for e in finished_peer.log[:WANT_BATCH])
    for seq in [0] * 200 + list(range(1, 50)):  # the flood: the same want, and wants inside it
        socket.inbox.put_nowait(encode_want(seq))
    await socket.drained()
    assert link.put_total == once
    socket.inbox.put_nowait(None)
    await task


async def test_a_seat_that_wants_and_never_reads_is_cut_at_the_bound(finished_peer: Peer) -> None:
    bound = 20_000
    mesh = Mesh(finished_peer, b"t" * 16, link_bytes=bound)
    finished_peer.resend_after = 0.0  # every want is new: only the byte bound is left
    try:
        socket = StandInSocket(stuck=True)
        _link, task = serve(mesh, 1, socket)
        for seq in range(len(finished_peer.log)):
            socket.inbox.put_nowait(encode_want(seq))
        await task  # the link is closed: it does not read
    finally:
        finished_peer.resend_after = 1.0
    assert mesh.overflowed == 1
    assert 0 < mesh.most_queued[1] <= bound
    assert 1 not in mesh.links


async def test_a_catch_up_fetched_a_batch_at_a_time_arrives_whole(finished_peer: Peer) -> None:
    log = finished_peer.log
    mesh = Mesh(finished_peer, b"t" * 16, link_bytes=WANT_BATCH * 4096)
    socket = StandInSocket()
    _link, task = serve(mesh, 1, socket)
    got: list[bytes] = []
    while len(got) < len(log):
        socket.sent.clear()
        socket.inbox.put_nowait(encode_want(len(got)))
        await socket.drained()
        got += [value for kind, value in map(decode_message, socket.sent) if kind == 0]
    assert got == [e.raw for e in log]
    socket.inbox.put_nowait(None)
    await task
    assert mesh.overflowed == 0


async def test_a_transport_closing_under_a_link_closes_that_link_only(finished_peer: Peer) -> None:
    mesh = Mesh(finished_peer, b"t" * 16)
    closing = aiohttp.ClientConnectionResetError("Cannot write to closing transport")
    healthy = StandInSocket()
    _ok, ok_task = serve(mesh, 2, healthy)
    broken = StandInSocket(broken=closing)
    _bad, bad_task = serve(mesh, 1, broken)
    broken.inbox.put_nowait(encode_want(0))  # answered into a transport that is closing
    await healthy.drained()
    broken.inbox.put_nowait(closing)  # and the next read fails the same way
    await bad_task  # no exception escapes
    assert 1 not in mesh.links and 2 in mesh.links
    healthy.inbox.put_nowait(encode_want(0))
    await healthy.drained()
    assert healthy.sent  # the other link still carries messages
    healthy.inbox.put_nowait(None)
    await ok_task


async def test_a_spectator_that_does_not_read_holds_at_most_the_byte_bound() -> None:
    """The watch server's queue counts bytes too: 4096 messages of up to 64 KiB each would be
    256 MiB for one spectator that does not read."""
    gallery = Gallery(8, lambda _line: None, Gate(None, bytes(32)))
    spectator = Spectator("Sam", None, None, asyncio.Queue(QUEUE_LIMIT),  # type: ignore[arg-type]
                          limit=QUEUE_BYTES)
    gallery.spectators.append(spectator)
    for _ in range(QUEUE_LIMIT):
        gallery._send(bytes(60_000))  # nobody takes them
    assert spectator.dropped and gallery.dropped == 1
    assert 0 < gallery.most_queued <= QUEUE_BYTES
