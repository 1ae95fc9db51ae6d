"""Hostile bytes at a LIVE mesh listener on 127.0.0.1, fuzzed with hypothesis.

One peer (seat 2, in the middle of a hand, its log 40-odd entries long) listens behind a real
:class:`~protocol.mesh.Mesh` on an ephemeral loopback port, for the whole module; every example
is one websocket link to it, so it costs a connect and a handshake, not a table.

* After a correct handshake as a seated key, the fuzzer sends random bytes, random msgpack,
  near-valid messages, damaged copies of real entries, text frames, oversized frames and raw
  websocket frames that break RFC 6455. A frame that is not a peer message closes the link (1008
  with the reason in the close frame; the websocket layer's own code, 1002/1007/1009, when the
  frame is not even a websocket message), and the fault is recorded against that seat. A valid
  message carrying a bad entry keeps the link: the entry is refused with a fault, as it would be
  from an honest relay.
* Hostile handshakes (bad hellos, unseated, own, weak or non-point keys, bad proofs, text frames,
  a close or a dropped connection midway, silence) are refused with 1008 and counted in
  ``mesh.refused``; a stranger with a perfectly valid proof of its own key is refused too.

After every example the peer's log is unchanged, it is not frozen, no exception escaped the
handler or the event loop, and an honest client still completes the handshake and gets its
``want`` answered. A link that merely drops (a crashed or restarted peer) is no fault.

Two cases found by this file are fixed and kept as tests: a heartbeat timeout (a machine that
vanished) is no fault, and a message kind that is a bool or a float closes the link.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import aiohttp
import msgpack
import pytest
from aiohttp import WSCloseCode, WSMsgType, web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

import protocol.mesh as mesh_module
from p2p10.errors import ProtocolError
from p2p10.log import MAX_ENTRY_BYTES, public_bytes
from p2p10.peer import MAX_MESSAGE_BYTES, Peer, decode_message, encode_entry_message, encode_want
from p2p10.peer_parts import Fault
from p2p10.rules import RuleSet
from p2p10.signing import Domain, sign, verify
from p2p10.simulate import greedy_player
from protocol.listener import listen
from protocol.memory import MemoryNetwork, make_peers, open_table
from protocol.mesh import CLOSE_POLICY, CLOSE_REASON_BYTES, HELLO_BYTES, MESH_PATH, Mesh
from protocol.mesh_link import hello_message
from protocol.tls import client_context

HOST = "127.0.0.1"
LISTENER = 1  # the seat whose mesh is attacked
SEATS = (0, 2)  # the seated keys a fuzzer may hold
GUARD = 15.0  # a link that should have ended by now has hung (a test failure, not a timing check)
SETTINGS: dict[str, Any] = {"deadline": None,
                            "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
NOT_BINARY = "a frame that is not binary"
HANDSHAKE_FAILED = "handshake failed"
T = TypeVar("T")


# --------------------------------------------------------------------------------- the table

def _table() -> list[Peer]:
    peers = make_peers([greedy_player] * 3, seed=77)
    network = MemoryNetwork(peers)
    open_table(peers, ["Ann", "Bob", "Cyd"], RuleSet.parse(["hands=1"]), seed=77)
    network.run(lambda: len(peers[LISTENER].log) > 40)
    listener = peers[LISTENER]
    listener.take_outbox()
    assert listener.table is not None and not listener.stopped
    expect = listener.table.expected()
    # Not the listener's turn: its log can only grow by an entry another seat signed.
    assert expect is not None and expect.seat != LISTENER
    return peers


PEERS = _table()
KEYS = [public_bytes(p.identity) for p in PEERS]
LOG = list(PEERS[LISTENER].log)
MESSAGES = [encode_entry_message(e.raw) for e in LOG]
GAME_ID = LOG[0].game_id  # the lobby uses the game id as the table id


# ------------------------------------------------------------------------------ the listener

class _Errors(logging.Handler):
    def __init__(self, sink: list[object]) -> None:
        super().__init__(logging.ERROR)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        self.sink.append(record.getMessage())


@dataclass(frozen=True)
class Snapshot:
    faults: int
    refused: int
    linked: int
    started: int


class Listener:
    """Seat 2's peer behind a real mesh on loopback, driven by one event loop for the module."""

    def __init__(self) -> None:
        self.peer = PEERS[LISTENER]
        self.key = KEYS[LISTENER]
        self.errors: list[object] = []  # exceptions out of the handler, the loop or aiohttp's log
        self.errors_at = 0  # where the current example's errors start
        self.started = 0
        self.active = 0
        self.clients: list[aiohttp.ClientWebSocketResponse] = []
        self._log_handler = _Errors(self.errors)
        for name in ("aiohttp", "asyncio"):
            logging.getLogger(name).addHandler(self._log_handler)
        self.runner = asyncio.Runner()
        self.run(self._start())

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return self.runner.run(coroutine)

    def example(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run one example; whatever happens, hang up every client link it opened (a failing
        example must not leave a half-open link behind to confuse the next one)."""

        async def run() -> None:
            self.errors_at = len(self.errors)
            async with asyncio.timeout(GUARD):
                while self.active:  # links a failed example left behind
                    await asyncio.sleep(0.001)
            try:
                async with asyncio.timeout(4 * GUARD):  # a hang fails the example, where it hangs
                    await coroutine
            finally:
                for socket in self.clients:
                    if not socket.closed:
                        abort(socket)
                self.clients.clear()

        self.run(run())
        self.check_sound()

    async def _start(self) -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _loop, context: self.errors.append(context))
        self.mesh = Mesh(self.peer, GAME_ID)
        self.mesh.seat_table(KEYS, [None] * len(KEYS))  # it never dials: mesh.run is not called
        self.web, self.port = await listen({MESH_PATH: self._handle}, HOST, identity=self.peer.identity)
        self.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=GUARD))

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.started += 1
        self.active += 1
        try:
            return await self.mesh.handle(request)
        except BaseException as err:
            self.errors.append(err)
            raise
        finally:
            self.active -= 1

    def close(self) -> None:
        async def stop() -> None:
            await self.session.close()
            await self.mesh.close()
            await self.web.cleanup()

        try:
            self.run(stop())
        finally:
            self.runner.close()
            for name in ("aiohttp", "asyncio"):
                logging.getLogger(name).removeHandler(self._log_handler)

    # ----------------------------------------------------------------- client side

    def snapshot(self) -> Snapshot:
        return Snapshot(len(self.peer.faults), self.mesh.refused, self.mesh.linked, self.started)

    def expect(self, before: Snapshot, *, refused: int = 0, linked: int = 0) -> None:
        """After one link since ``before`` (and no fault): how many links were refused and linked."""
        assert self.snapshot() == Snapshot(before.faults, before.refused + refused,
                                           before.linked + linked, before.started + 1)

    async def settle(self, before: Snapshot, links: int = 1) -> None:
        """Wait until the mesh has finished with the ``links`` links opened since ``before``."""
        async with asyncio.timeout(GUARD):
            while self.started < before.started + links or self.active:
                await asyncio.sleep(0.001)

    async def connect(self, identity: Ed25519PrivateKey | None = None) -> aiohttp.ClientWebSocketResponse:
        """A TLS link presenting ``identity``'s certificate (seat 1's if None: the mesh pins
        the certificate to the key proven after the handshake, so a hostile handshake that
        should fail on its proof presents the key it claims)."""
        identity = identity or PEERS[SEATS[0]].identity
        # No autoping: a pong with our own payload is how a link shows it is still alive.
        socket = await self.session.ws_connect(f"https://{HOST}:{self.port}{MESH_PATH}", autoping=False,
                                               max_msg_size=0, ssl=client_context(identity))
        self.clients.append(socket)
        return socket

    async def their_hello(self, socket: aiohttp.ClientWebSocketResponse) -> bytes:
        """The listener's hello (it sends it first thing); its challenge."""
        message = await receive(socket)
        assert message.type == WSMsgType.BINARY and len(message.data) == HELLO_BYTES
        assert message.data[:32] == self.key
        challenge: bytes = message.data[32:]
        return challenge

    async def handshake(self, seat: int) -> aiohttp.ClientWebSocketResponse:
        """A link that proves ``seat``'s key, as an honest dialler does; the mesh's opening
        ``want`` has been read."""
        socket = await self.connect(PEERS[seat].identity)
        theirs = await self.their_hello(socket)
        mine = os.urandom(32)
        await socket.send_bytes(KEYS[seat] + mine)
        await socket.send_bytes(sign(PEERS[seat].identity, Domain.HANDSHAKE,
                                     hello_message(GAME_ID, mine, theirs, KEYS[seat], self.key)))
        proof = await receive(socket)
        assert proof.type == WSMsgType.BINARY
        assert verify(PEERS[LISTENER].identity.public_key(), Domain.HANDSHAKE,
                      hello_message(GAME_ID, mine, theirs, KEYS[seat], self.key), proof.data)
        opening = await receive(socket)
        assert opening.type == WSMsgType.BINARY and opening.data == encode_want(len(LOG))
        return socket

    async def honest(self, seat: int) -> None:
        """An honest link still works: handshake, ask for the last entry, get it, hang up."""
        before = self.snapshot()
        socket = await self.handshake(seat)
        await socket.send_bytes(encode_want(len(LOG) - 1))
        async with asyncio.timeout(GUARD):
            while (message := await receive(socket)).type == WSMsgType.BINARY:
                if message.data == MESSAGES[-1]:
                    break
        assert message.type == WSMsgType.BINARY, message
        await socket.close()
        await self.settle(before)
        self.expect(before, linked=1)

    def check_sound(self) -> None:
        assert not self.errors[self.errors_at:], self.errors[self.errors_at:]
        assert [e.hash for e in self.peer.log] == [e.hash for e in LOG]
        assert not self.peer.stopped
        assert not self.mesh.links


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    served = Listener()
    try:
        yield served
    finally:
        served.close()


async def receive(socket: aiohttp.ClientWebSocketResponse) -> aiohttp.WSMessage:
    """The next frame, answering the listener's heartbeat pings on the way."""
    async with asyncio.timeout(GUARD):
        while True:
            message = await socket.receive()
            if message.type == WSMsgType.PING:
                with contextlib.suppress(ConnectionError, aiohttp.ClientError):
                    await socket.pong(message.data)
                continue
            return message


async def close_frame(socket: aiohttp.ClientWebSocketResponse) -> tuple[int | None, str]:
    """Read until the listener closes the link: its close code and reason."""
    while True:
        message = await receive(socket)
        if message.type == WSMsgType.CLOSE:
            return message.data, message.extra or ""
        if message.type in (WSMsgType.CLOSED, WSMsgType.CLOSING, WSMsgType.ERROR):
            return socket.close_code, ""


async def ping_or_close(socket: aiohttp.ClientWebSocketResponse) -> tuple[int | None, str] | None:
    """Ping with a fresh payload. None once its pong comes back (the listener reads frames in
    order, so everything sent before has been read and let through); the close code and reason
    if the listener closes the link instead."""
    token = os.urandom(8)
    with contextlib.suppress(ConnectionError, aiohttp.ClientError):
        await socket.ping(token)
    while True:
        message = await receive(socket)
        if message.type == WSMsgType.PONG and message.data == token:
            return None
        if message.type == WSMsgType.CLOSE:
            return message.data, message.extra or ""
        if message.type in (WSMsgType.CLOSED, WSMsgType.CLOSING, WSMsgType.ERROR):
            return socket.close_code, ""


async def send_quietly(coroutine: Coroutine[Any, Any, None]) -> None:
    """Send, unless the listener has already hung up (it may, before we finish sending)."""
    with contextlib.suppress(ConnectionError, aiohttp.ClientError):
        await coroutine


def abort(socket: aiohttp.ClientWebSocketResponse) -> None:
    """Drop the TCP connection without a close frame (a crashed client)."""
    socket._writer.transport.abort()


def sent_reason(reason: str) -> str:
    """The reason as the close frame carries it (cut to what a close frame holds)."""
    return reason.encode()[:CLOSE_REASON_BYTES].decode(errors="ignore")


# ---------------------------------------------------------------------------------- frames

@dataclass(frozen=True)
class Frame:
    data: bytes | str  # str: a text frame

    def __repr__(self) -> str:
        shown = self.data if len(self.data) <= 80 else f"{self.data[:40]!r}... ({len(self.data)} long)"
        return f"Frame({shown!r})"


def verdict(frame: Frame) -> str | None:
    """Why the mesh must close a link over ``frame`` (None: it is a peer message).
    ``"too big"`` stands for the websocket layer's own refusal of an oversized frame."""
    if len(frame.data) > MAX_MESSAGE_BYTES:
        return "too big"
    if isinstance(frame.data, str):
        return NOT_BINARY
    try:
        decode_message(frame.data)
    except ProtocolError as err:
        return str(err)
    return None


def note(text: str) -> None:
    """A hypothesis event (shown by --hypothesis-show-statistics); nothing outside a given test."""
    with contextlib.suppress(InvalidArgument):
        event(text)


def pack(value: object) -> bytes:
    return bytes(msgpack.packb(value, use_bin_type=True))


def cut(data: bytes, at: int) -> bytes:
    return data[:at % len(data)]


def damaged(data: bytes, flips: list[tuple[int, int]]) -> bytes:
    out = bytearray(data)
    for position, bit in flips:
        out[position % len(out)] ^= 1 << bit
    return bytes(out)


values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats() | st.binary(max_size=80)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20)
flips = st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 7)), min_size=1, max_size=4)
real = st.sampled_from(MESSAGES)
raw_entries = st.sampled_from([e.raw for e in LOG])
valid = st.one_of(real, st.integers(0, 2**64 - 1).map(encode_want))
near_valid = st.one_of(
    st.tuples(st.just(0), st.binary(max_size=300)),  # valid shape, junk entry
    st.tuples(st.just(0), values),
    st.tuples(st.just(1), st.integers(-2**63, 2**64 - 1) | st.booleans() | st.floats() | st.text(max_size=4)
              | st.none() | st.binary(max_size=8)),
    st.tuples(st.integers(-2**63, 2**64 - 1) | st.booleans() | st.floats() | st.none(), values),
    st.tuples(st.integers(0, 4), values),  # whatever kinds of message the peer knows, and one more
    st.tuples(st.integers(0, 4), st.lists(st.integers(0, 5) | st.binary(max_size=70), max_size=6)),
    st.tuples(st.integers(0, 4), values, values),  # a list of the wrong length
    st.tuples(st.integers(0, 4)),
    st.dictionaries(st.integers(0, 4), values, max_size=2),
).map(pack)
broken_valid = st.one_of(
    st.tuples(valid, st.binary(min_size=1, max_size=20)).map(lambda t: t[0] + t[1]),  # trailing bytes
    st.tuples(valid, st.integers(0, 10**6)).map(lambda t: cut(*t)),  # cut short
)
damaged_real = st.one_of(
    st.tuples(real, flips).map(lambda t: damaged(*t)),
    st.tuples(raw_entries, flips).map(lambda t: encode_entry_message(damaged(*t))),  # valid shape
    st.tuples(raw_entries, st.integers(0, 10**6)).map(lambda t: encode_entry_message(cut(*t))),
    st.tuples(raw_entries, st.binary(min_size=1, max_size=20)).map(b"".join).map(encode_entry_message),
)


def _big(size: int, kind: int, seed: int) -> Frame:
    if kind == 0:  # an entry message of about the largest size, on either side of the limit
        return Frame(encode_entry_message(bytes(size - 7)))
    if kind == 1:
        return Frame(random.Random(seed).randbytes(size))
    return Frame("x" * size)


# Around the limit, exactly at it included: the mesh sets aiohttp's max_msg_size one above it,
# since aiohttp's limit is exclusive and decode_message's is inclusive.
big = st.builds(_big, st.integers(MAX_MESSAGE_BYTES - 20, MAX_MESSAGE_BYTES + 3000),
                st.integers(0, 2), st.integers(0, 2**32))

frames = st.one_of(
    st.binary(max_size=300).map(Frame),
    values.map(pack).map(Frame),
    near_valid.map(Frame),
    broken_valid.map(Frame),
    damaged_real.map(Frame),
    valid.map(Frame),
    st.text(max_size=100).map(Frame),
    big,
)


async def _send(socket: aiohttp.ClientWebSocketResponse, frame: Frame) -> None:
    if isinstance(frame.data, str):
        await socket.send_str(frame.data)
    else:
        await socket.send_bytes(frame.data)


async def _hostile_frames(listener: Listener, seat: int, sent: list[Frame]) -> None:
    before = listener.snapshot()
    socket = await listener.handshake(seat)
    for frame in sent:
        await send_quietly(_send(socket, frame))
    reasons = [verdict(frame) for frame in sent]
    closing = next((r for r in reasons if r is not None), None)
    note(f"closed over: {closing}" if closing else "kept open")
    ending = await ping_or_close(socket)
    if closing is None:
        assert ending is None
    else:
        assert ending is not None
        code, said = ending
        if closing == "too big":  # refused by aiohttp before it reads the payload
            assert (code, said) == (WSCloseCode.MESSAGE_TOO_BIG, "")
        else:
            assert (code, said) == (CLOSE_POLICY, sent_reason(closing))
    await socket.close()
    await listener.settle(before)
    after = listener.snapshot()
    assert after.linked == before.linked + 1
    new = listener.peer.faults[before.faults:]
    assert all(f.seat == seat for f in new), new
    closed = [f for f in new if f.reason.startswith("link closed")]
    if closing is None:
        assert after.refused == before.refused and not closed
    else:
        assert after.refused == before.refused + 1
        assert closed == [new[-1]] and new[-1].seq is None  # nothing is read after the bad frame
        if closing == "too big":
            assert new[-1].reason.startswith("link closed: a bad frame (")
        else:
            assert new[-1].reason == f"link closed: {closing}"
            if closing != NOT_BINARY:  # the peer itself refused the message first
                assert new[-2] == Fault(seat, None, closing)
    listener.check_sound()
    await listener.honest(seat)


@settings(max_examples=250, **SETTINGS)
@given(seat=st.sampled_from(SEATS), sent=st.lists(frames, min_size=1, max_size=3))
def test_hostile_frames_after_a_correct_handshake(listener: Listener, seat: int, sent: list[Frame]) -> None:
    listener.example(_hostile_frames(listener, seat, sent))


def test_the_largest_entry_message_passes_and_one_byte_over_the_limit_does_not(listener: Listener) -> None:
    """A message carrying an entry of MAX_ENTRY_BYTES goes through the transport (the peer
    refuses the junk entry, the link stays); a frame one byte over MAX_MESSAGE_BYTES closes it."""
    listener.example(_hostile_frames(listener, 0, [Frame(encode_entry_message(bytes(MAX_ENTRY_BYTES)))]))
    listener.example(_hostile_frames(listener, 2, [Frame(bytes(MAX_MESSAGE_BYTES + 1))]))


# ------------------------------------------------------------- raw websocket frames (RFC 6455)

CONTROL = {8, 9, 10}
KNOWN_OPCODES = {0, 1, 2} | CONTROL
ALLOWED_CLOSE_CODES = {int(code) for code in WSCloseCode}


@dataclass(frozen=True)
class Raw:
    fin: bool
    rsv: int
    opcode: int
    payload: bytes
    masked: bool
    wide: int  # 0: the shortest length field; 1: 16 bits; 2: 64 bits (longer than need be is legal)
    declared: int | None = None  # a length header with no payload behind it

    def encode(self, mask: bytes) -> bytes:
        first = (self.fin << 7) | (self.rsv << 4) | self.opcode
        size = len(self.payload) if self.declared is None else self.declared
        bit = 0x80 if self.masked else 0
        if size < 126 and self.wide == 0:
            header = bytes([first, bit | size])
        elif size < 65536 and self.wide <= 1:
            header = bytes([first, bit | 126]) + size.to_bytes(2, "big")
        else:
            header = bytes([first, bit | 127]) + size.to_bytes(8, "big")
        if self.declared is not None:
            return header
        if not self.masked:
            return header + self.payload
        return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(self.payload))


def raw_outcomes(raw: Raw) -> set[tuple[str, int | None, str | None]]:
    """What the listener may do with ``raw`` followed by a ping: ("open", None, None); ("closed",
    code, reason) with a fault against the seat (reason None: the websocket layer's own, which the
    fault calls "a bad frame"); ("hung up", 1000, "") when ``raw`` was a clean close frame."""
    protocol_error = ("closed", int(WSCloseCode.PROTOCOL_ERROR), None)
    out = {protocol_error} if not raw.masked else set()  # RFC 6455 lets a server refuse an unmasked frame
    length = len(raw.payload) if raw.declared is None else raw.declared
    if raw.rsv or raw.opcode not in KNOWN_OPCODES:
        return {protocol_error}
    if raw.opcode in CONTROL and (not raw.fin or length > 125 or raw.wide):
        return {protocol_error}
    if raw.opcode not in CONTROL and length > MAX_MESSAGE_BYTES:
        return out | {("closed", int(WSCloseCode.MESSAGE_TOO_BIG), None)}
    assert raw.declared is None, "a length that is not sent would leave the listener waiting"
    if raw.opcode == 0:
        return {protocol_error}  # a continuation of no message
    if raw.opcode in (1, 2) and not raw.fin:
        return out | {("open", None, None)}  # a message begun: pings may come between its fragments
    if raw.opcode == 1:
        try:
            raw.payload.decode()
        except UnicodeDecodeError:
            return out | {("closed", int(WSCloseCode.INVALID_TEXT), None)}
        return out | {("closed", CLOSE_POLICY, NOT_BINARY)}
    if raw.opcode == 2:
        why = verdict(Frame(raw.payload))
        return out | {("open", None, None) if why is None else ("closed", CLOSE_POLICY, sent_reason(why))}
    if raw.opcode == 8:
        if len(raw.payload) == 1:
            return {protocol_error}
        if raw.payload:
            code = int.from_bytes(raw.payload[:2], "big")
            if code < 3000 and code not in ALLOWED_CLOSE_CODES:
                return {protocol_error}
            try:
                raw.payload[2:].decode()
            except UnicodeDecodeError:
                return out | {("closed", int(WSCloseCode.INVALID_TEXT), None)}
        return out | {("hung up", int(WSCloseCode.OK), "")}
    return out | {("open", None, None)}  # a ping (answered) or an unasked-for pong (ignored)


def _raw(draw: st.DrawFn) -> Raw:
    opcode = draw(st.sampled_from([2, 2, 2, 2, 2, 1, 1, 8, 8, 8, 9, 9, 10, 0, 0, 3, 7, 11, 15]))
    fin = draw(st.sampled_from([True, True, True, False]))
    rsv = draw(st.sampled_from([0] * 12 + [1, 2, 4, 7]))
    masked = draw(st.sampled_from([True, True, True, False]))
    if draw(st.integers(0, 11)) == 0:  # a length header that promises more than any frame may hold
        if opcode in CONTROL:
            declared = draw(st.integers(126, 2**16 - 1))
            return Raw(fin, rsv, opcode, b"", masked, draw(st.integers(1, 2)), declared)
        return Raw(fin, rsv, opcode, b"", masked, 2, draw(st.integers(MAX_MESSAGE_BYTES + 1, 2**64 - 1)))
    if opcode == 8:
        payload = draw(st.binary(max_size=3) | st.tuples(st.integers(0, 2**16 - 1), st.text(max_size=20)).map(
            lambda t: t[0].to_bytes(2, "big") + t[1].encode()) | st.binary(min_size=2, max_size=40))
    elif opcode in (1, 2) and fin and not rsv:
        payload = draw(st.text(max_size=60).map(str.encode) | st.binary(max_size=200) | near_valid | valid)
    else:
        payload = draw(st.binary(max_size=200))
    return Raw(fin, rsv, opcode, payload, masked, draw(st.sampled_from([0, 0, 0, 0, 1, 2])))


raws = st.composite(_raw)()


async def _raw_frame(listener: Listener, seat: int, raw: Raw) -> None:
    before = listener.snapshot()
    socket = await listener.handshake(seat)
    socket._writer.transport.write(raw.encode(os.urandom(4)))
    ending = await ping_or_close(socket)
    outcome: tuple[str, int | None, str | None]
    if ending is None:
        outcome = ("open", None, None)
    elif ending[0] == WSCloseCode.OK:
        outcome = ("hung up", *ending)
    else:
        outcome = ("closed", ending[0], ending[1] if ending[0] == CLOSE_POLICY else None)
        assert ending[0] == CLOSE_POLICY or ending[1] == ""
    await socket.close()
    note(f"{outcome[0]} {outcome[1] or ''}")
    assert outcome in raw_outcomes(raw)
    await listener.settle(before)
    after = listener.snapshot()
    new = listener.peer.faults[before.faults:]
    assert all(f.seat == seat for f in new), new
    closed = [f for f in new if f.reason.startswith("link closed")]
    if outcome[0] == "closed":
        assert after.refused == before.refused + 1 and closed == [new[-1]]
        if outcome[2] is None:  # the websocket layer refused the frame
            assert new[-1].reason.startswith("link closed: a bad frame (")
        else:
            assert new[-1].reason == f"link closed: {outcome[2]}"
    else:
        assert after.refused == before.refused and not closed
    listener.check_sound()
    await listener.honest(seat)


@settings(max_examples=200, **SETTINGS)
@given(seat=st.sampled_from(SEATS), raw=raws)
def test_raw_websocket_frames_that_break_the_rfc(listener: Listener, seat: int, raw: Raw) -> None:
    listener.example(_raw_frame(listener, seat, raw))


# ------------------------------------------------------------------------ hostile handshakes

# Weak keys: points of small order (one signature verifies for every message), with the sign bit
# set too, and 32 bytes that decode to no point at all.
SMALL_ORDER = [bytes.fromhex(h) for h in (
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0100000000000000000000000000000000000000000000000000000000000000",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0100000000000000000000000000000000000000000000000000000000000080",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
)]
NOT_A_POINT = bytes.fromhex("0200000000000000000000000000000000000000000000000000000000000000")
WEAK = [*SMALL_ORDER, NOT_A_POINT]

close_codes = st.integers(1000, 4999) | st.sampled_from([1000, 1001, 1005, 1006, 1008, 1015, 3000, 4000])
seated_hello = st.tuples(st.just("key"), st.sampled_from(SEATS), st.just(b""))  # then a proof
hellos = seated_hello | st.one_of(
    st.tuples(st.just("bytes"), st.binary(max_size=100)),  # mostly the wrong length
    st.tuples(st.just("key"), st.sampled_from(SEATS), st.binary(min_size=0, max_size=40)),
    st.tuples(st.just("key"), st.sampled_from(["own", "stranger", *WEAK]),
              st.binary(min_size=32, max_size=32)),
    st.tuples(st.just("text"), st.text(max_size=80)),
    st.tuples(st.just("close"), close_codes),
    st.just(("abort",)),
)
SIGNERS = ["right", "other seat", "listener", "stranger"]
SIGNED = ["right", "other table", "roles swapped", "challenges swapped", "no table"]
OTHER_THAN_HANDSHAKE = [d for d in Domain if d is not Domain.HANDSHAKE]
proofs = st.tuples(st.just("sign"), st.sampled_from(SIGNERS), st.sampled_from(SIGNED)) | st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 511)),
    st.tuples(st.just("tagged"), st.sampled_from(OTHER_THAN_HANDSHAKE)),
    st.tuples(st.just("bytes"), st.binary(max_size=100)),
    st.tuples(st.just("text"), st.text(max_size=80)),
    st.tuples(st.just("close"), close_codes),
    st.just(("abort",)),
)


def _hello_key(hello: tuple[Any, ...], stranger: Ed25519PrivateKey) -> bytes:
    who = hello[1]
    if who == "own":
        return KEYS[LISTENER]
    if who == "stranger":
        return public_bytes(stranger)
    if isinstance(who, int):
        return KEYS[who]
    return bytes(who)


def _proof(proof: tuple[Any, ...], seat: int, mine: bytes, theirs: bytes,
           stranger: Ed25519PrivateKey) -> bytes:
    right = hello_message(GAME_ID, mine, theirs, KEYS[seat], KEYS[LISTENER])
    if proof[0] == "flip":
        return damaged(sign(PEERS[seat].identity, Domain.HANDSHAKE, right), [(proof[1] // 8, proof[1] % 8)])
    if proof[0] == "tagged":  # the seat's own signature of the right bytes, made for another purpose
        return sign(PEERS[seat].identity, proof[1], right)
    signer = {"right": PEERS[seat].identity, "other seat": PEERS[2 - seat].identity,
              "listener": PEERS[LISTENER].identity, "stranger": stranger}[proof[1]]
    message = {
        "right": right,
        "other table": hello_message(os.urandom(len(GAME_ID)), mine, theirs, KEYS[seat], KEYS[LISTENER]),
        "roles swapped": hello_message(GAME_ID, theirs, mine, KEYS[LISTENER], KEYS[seat]),
        "challenges swapped": hello_message(GAME_ID, theirs, mine, KEYS[seat], KEYS[LISTENER]),
        "no table": hello_message(b"", mine, theirs, KEYS[seat], KEYS[LISTENER]),
    }[proof[2]]
    return sign(signer, Domain.HANDSHAKE, message)


async def _act(socket: aiohttp.ClientWebSocketResponse, action: tuple[Any, ...], data: bytes) -> bool:
    """Do ``action`` (sending ``data`` for a binary one); False once the client has hung up."""
    if action[0] == "text":
        await send_quietly(socket.send_str(action[1]))
    elif action[0] == "close":
        with contextlib.suppress(ConnectionError, aiohttp.ClientError, asyncio.TimeoutError):
            await socket.close(code=action[1])
        return False
    elif action[0] == "abort":
        abort(socket)
        return False
    else:
        await send_quietly(socket.send_bytes(data))
    return True


async def _hostile_handshake(listener: Listener, hello: tuple[Any, ...], proof: tuple[Any, ...],
                             stranger: Ed25519PrivateKey) -> None:
    before = listener.snapshot()
    claimed = _hello_key(hello, stranger) if hello[0] == "key" else None
    socket = await listener.connect(PEERS[KEYS.index(claimed)].identity if claimed in KEYS else stranger)
    theirs = await listener.their_hello(socket)
    mine = os.urandom(32)
    seat: int | None = None
    accepted = False
    if hello[0] == "key":
        key = _hello_key(hello, stranger)
        data = key + (mine if isinstance(hello[1], int) and len(hello[2]) == 0 else hello[2])
        if key in KEYS and key != KEYS[LISTENER] and len(data) == HELLO_BYTES:
            seat = KEYS.index(key)
            mine = data[32:]
    else:
        data = hello[1] if hello[0] == "bytes" else b""
        assert len(data) != HELLO_BYTES or data[:32] not in KEYS
    talking = await _act(socket, hello, data)
    if talking and seat is not None:
        message = await receive(socket)
        assert message.type == WSMsgType.BINARY and len(message.data) == 64  # the listener's proof
        if proof[0] in ("sign", "flip", "tagged"):
            data = _proof(proof, seat, mine, theirs, stranger)
        else:
            data = proof[1] if proof[0] == "bytes" else b""
        talking = await _act(socket, proof, data)
        accepted = proof == ("sign", "right", "right")
    note(f"hello {hello[0]}, " + ("refused" if seat is None else f"proof {proof[0]}"))
    if accepted:
        assert (await receive(socket)).data == encode_want(len(LOG))
        await socket.close()
    elif talking:
        assert await close_frame(socket) == (CLOSE_POLICY, HANDSHAKE_FAILED)
    with contextlib.suppress(ConnectionError, aiohttp.ClientError, asyncio.TimeoutError):
        await socket.close()
    await listener.settle(before)
    listener.expect(before, refused=int(not accepted), linked=int(accepted))
    listener.check_sound()
    await listener.honest(SEATS[0])


@settings(max_examples=200, **SETTINGS)
@given(hello=hellos, proof=proofs, stranger=st.binary(min_size=32, max_size=32))
def test_hostile_handshakes_are_refused(listener: Listener, hello: tuple[Any, ...], proof: tuple[Any, ...],
                                        stranger: bytes) -> None:
    stranger_key = Ed25519PrivateKey.from_private_bytes(stranger)
    listener.example(_hostile_handshake(listener, hello, proof, stranger_key))


@pytest.mark.parametrize("signer", SIGNERS)
def test_only_the_seats_own_proof_for_this_link_is_accepted(listener: Listener, signer: str) -> None:
    """Every signer against every message signed, after a seated hello: one pair links."""
    stranger = Ed25519PrivateKey.generate()
    for signed in SIGNED:
        listener.example(_hostile_handshake(listener, ("key", 0, b""), ("sign", signer, signed), stranger))


@pytest.mark.parametrize("domain", OTHER_THAN_HANDSHAKE, ids=lambda d: d.name.lower())
def test_the_seats_signature_for_another_purpose_is_no_proof(listener: Listener, domain: Domain) -> None:
    """Attack A33: a dialler presents, as seat 1's proof of its key, seat 1's own signature of the
    exact handshake bytes made for another purpose (an entry, a chat line, an agreement, a
    sit-down). Defence: a proof covers the handshake tag; the link is refused."""
    stranger = Ed25519PrivateKey.generate()
    listener.example(_hostile_handshake(listener, ("key", 0, b""), ("tagged", domain), stranger))


async def _stranger(listener: Listener, stranger: Ed25519PrivateKey) -> None:
    before = listener.snapshot()
    socket = await listener.connect()
    theirs = await listener.their_hello(socket)
    key, mine = public_bytes(stranger), os.urandom(32)
    assert key not in KEYS
    await socket.send_bytes(key + mine)
    proof = sign(stranger, Domain.HANDSHAKE, hello_message(GAME_ID, mine, theirs, key, KEYS[LISTENER]))
    await send_quietly(socket.send_bytes(proof))
    assert await close_frame(socket) == (CLOSE_POLICY, HANDSHAKE_FAILED)
    await socket.close()
    await listener.settle(before)
    listener.expect(before, refused=1)
    listener.check_sound()
    await listener.honest(SEATS[1])


@settings(max_examples=40, **SETTINGS)
@given(stranger=st.binary(min_size=32, max_size=32))
def test_a_strangers_valid_key_is_refused(listener: Listener, stranger: bytes) -> None:
    """A stranger with a real Ed25519 key and a perfectly good proof of it, for this table."""
    listener.example(_stranger(listener, Ed25519PrivateKey.from_private_bytes(stranger)))


async def _weak_seated(listener: Listener, weak: bytes, proof: bytes) -> None:
    before = listener.snapshot()
    socket = await listener.connect()
    await listener.their_hello(socket)
    await socket.send_bytes(weak + os.urandom(32))
    assert (await receive(socket)).type == WSMsgType.BINARY
    await socket.send_bytes(proof)
    assert await close_frame(socket) == (CLOSE_POLICY, HANDSHAKE_FAILED)
    await socket.close()
    await listener.settle(before)
    listener.expect(before, refused=1)


@pytest.mark.parametrize("weak", WEAK, ids=[w.hex()[:8] + w.hex()[-2:] for w in WEAK])
def test_a_weak_key_is_refused_even_if_seated(listener: Listener, weak: bytes) -> None:
    """Defence in depth: were a small-order key ever on the roster, the forgery that works for
    every message under such a key (R = the identity or the key itself, S = 0) does not link."""
    keys = listener.mesh.keys
    listener.mesh.keys = [*keys, weak]
    try:
        for proof in (bytes.fromhex("01") + bytes(63), weak + bytes(32), bytes(64)):
            listener.example(_weak_seated(listener, weak, proof))
    finally:
        listener.mesh.keys = keys
    listener.example(listener.honest(SEATS[0]))


async def _silent(listener: Listener, stage: str) -> None:
    before = listener.snapshot()
    socket = await listener.connect()
    await listener.their_hello(socket)
    if stage == "after the hello":  # a seated key, then no proof
        await socket.send_bytes(KEYS[0] + os.urandom(32))
        assert (await receive(socket)).type == WSMsgType.BINARY
    assert await close_frame(socket) == (CLOSE_POLICY, HANDSHAKE_FAILED)
    await socket.close()
    await listener.settle(before)
    listener.expect(before, refused=1)


@pytest.mark.parametrize("stage", ["before the hello", "after the hello"])
def test_a_silent_dialler_is_refused(listener: Listener, monkeypatch: pytest.MonkeyPatch, stage: str) -> None:
    monkeypatch.setattr(mesh_module, "HANDSHAKE_TIMEOUT", 0.3)
    listener.example(_silent(listener, stage))
    monkeypatch.undo()
    listener.example(listener.honest(SEATS[0]))


# ------------------------------------------------------------- links that end without a fault

async def _dropped(listener: Listener, how: str) -> None:
    before = listener.snapshot()
    socket = await listener.handshake(0)
    if how == "reset":
        abort(socket)
    elif how == "TCP close, no close frame":
        socket._writer.transport.close()
    else:
        await socket.close(code=WSCloseCode.GOING_AWAY)
    await listener.settle(before)
    listener.expect(before, linked=1)


@pytest.mark.parametrize("how", ["reset", "TCP close, no close frame", "close frame"])
def test_a_link_dropped_after_the_handshake_is_no_fault(listener: Listener, how: str) -> None:
    """A crashed or restarted peer is not a hostile one: no refusal, no fault."""
    listener.example(_dropped(listener, how))
    listener.example(listener.honest(SEATS[0]))


async def _silent_after_handshake(listener: Listener) -> None:
    before = listener.snapshot()
    await listener.handshake(0)
    await listener.settle(before)  # never answers the heartbeat's ping: the listener hangs up
    listener.expect(before, linked=1)


def test_a_machine_that_vanishes_after_the_handshake_is_no_fault(
        listener: Listener, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mesh_module, "HEARTBEAT", 0.2)
    listener.example(_silent_after_handshake(listener))


@pytest.mark.parametrize("frame", [pack([True, 0]), pack([1.0, 0]), pack([False, LOG[-1].raw])],
                         ids=["[true, 0]", "[1.0, 0]", "[false, entry]"])
def test_a_message_kind_that_is_not_an_integer_closes_the_link(listener: Listener, frame: bytes) -> None:
    before = listener.snapshot()
    listener.example(_expect_closed(listener, frame))
    assert listener.snapshot().refused == before.refused + 1


async def _expect_closed(listener: Listener, frame: bytes) -> None:
    socket = await listener.handshake(0)
    await socket.send_bytes(frame)
    ending = await ping_or_close(socket)
    await socket.close()
    assert ending is not None and ending[0] == CLOSE_POLICY, ending
