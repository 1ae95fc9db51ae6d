"""One link of the LAN mesh: the handshake's signed message, the frame rate limit and the send
queue bounded in bytes. The mesh itself, which dials, accepts and relays over its links, is
protocol.mesh."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import aiohttp
from aiohttp import web

from p2p10.errors import ProtocolError
from p2p10.peer import WANT_BATCH

HELLO_LABEL = b"p2p10/hello/v1"
# Generous for honest play: a want is answered with up to 256 entries at once, and every entry
# reaches a peer from every other seat. A flood well beyond that is closed.
RATE_PER_SECOND = 400.0
RATE_BURST = 2000.0
# The most bytes that wait to be sent on one link (PROTOCOL §6.1). A seat that asks (wants) and
# does not read would otherwise make this peer hold all it asked for; its link is closed once
# this much waits, and its dialler dials again. Far above an honest catch-up, which is answered
# WANT_BATCH entries at a time and read as it comes.
LINK_BYTES = 8 * 1024 * 1024


class HandshakeFailed(ProtocolError):
    """The other side did not prove a seated key for this table."""


def hello_message(table_id: bytes, dialler_challenge: bytes, listener_challenge: bytes,
                  dialler_key: bytes, listener_key: bytes) -> bytes:
    """The message each side of a link signs, as a handshake, to prove its key (see
    :mod:`protocol.mesh`'s docstring)."""
    return HELLO_LABEL + table_id + dialler_challenge + listener_challenge + dialler_key + listener_key


@dataclass
class RateLimit:
    """A token bucket: ``rate`` frames a second on average, bursts up to ``burst``."""

    rate: float = RATE_PER_SECOND
    burst: float = RATE_BURST
    tokens: float = 0.0
    at: float | None = None

    def allow(self, now: float) -> bool:
        """Take one token; False when the bucket is empty."""
        if self.at is None:
            self.tokens = self.burst  # a new link starts with a full bucket
        else:
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


Socket = web.WebSocketResponse | aiohttp.ClientWebSocketResponse


@dataclass(eq=False)
class Link:
    """One authenticated websocket to another seat, with its send queue, bounded in bytes:
    ``queued`` bytes wait in it (``most`` at the most so far); once a message would take it
    over ``limit`` the link is ``overflowed`` and closed (the other side does not read)."""

    seat: int
    socket: Socket
    limit: int = LINK_BYTES
    queue: asyncio.Queue[bytes] = field(default_factory=asyncio.Queue)
    queued: int = 0
    most: int = 0
    put_total: int = 0  # bytes ever queued on this link
    sent_total: int = 0  # bytes ever handed to the socket
    overflowed: asyncio.Event = field(default_factory=asyncio.Event)
    # The wants answered on this link: position -> (when, the put_total its answer ends at).
    answered: dict[int, tuple[float, int]] = field(default_factory=dict)

    def put(self, data: bytes) -> None:
        """Queue ``data``; over the bound, nothing is queued and the link is to be closed."""
        if self.overflowed.is_set():
            return
        if self.queued + len(data) > self.limit:
            self.overflowed.set()
            return
        self.queue.put_nowait(data)
        self.queued += len(data)
        self.put_total += len(data)
        self.most = max(self.most, self.queued)

    def answering(self, seq: int, now: float, again_after: float) -> bool:
        """Whether a want from ``seq`` on this link is already answered: a want answered here
        covers ``seq`` (it asked from at most ``seq``, less than WANT_BATCH before) and either
        came less than ``again_after`` ago or its answer still waits in the queue."""
        for start, (at, end) in self.answered.items():
            if start <= seq < start + WANT_BATCH and (
                    now - at < again_after or self.sent_total < end):
                return True
        return False
