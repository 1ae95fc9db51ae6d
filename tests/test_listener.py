"""The listener's door (:mod:`protocol.listener`), on loopback: a connection that does not
become a link in time is closed, a plain answer closes its connection, one source holds only its
share of connections and all together only theirs, the links are not touched by the deadline,
and a table plays on while a stranger holds what it can. Sources other than 127.0.0.1 are other
loopback addresses (127.0.0.2, ...), bound by the test."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.audit import audit_bytes
from p2p10.rules import RuleSet
from protocol import listener
from protocol.lan_host import Host
from protocol.lan_join import Joiner
from protocol.listener import Door, Ledger, listen, source_of
from protocol.tls import client_context
from tests.test_discovery import eventually

TIMEOUT = 60.0
Stream = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def echo(request: web.Request) -> web.StreamResponse:
    """A websocket route that sends back every frame."""
    socket = web.WebSocketResponse()
    await socket.prepare(request)
    async for message in socket:
        await socket.send_bytes(message.data)
    return socket


async def table(request: web.Request) -> web.StreamResponse:
    """A plain request's route, as ``GET /table``."""
    return web.json_response({"table": "Kitchen"})


async def flood(request: web.Request) -> web.StreamResponse:
    """A websocket route that sends without end (until its link is closed)."""
    socket = web.WebSocketResponse()
    await socket.prepare(request)
    with contextlib.suppress(ConnectionError, OSError, RuntimeError):
        while not socket.closed:
            await socket.send_bytes(bytes(65536))
    return socket


@asynccontextmanager
async def serving(ledger: Ledger | None = None) -> AsyncIterator[tuple[int, Door]]:
    """A listener on 127.0.0.1 with the routes above, counting against ``ledger`` (one of its
    own by default, so that no other test's connections count here)."""
    door = Door(ledger if ledger is not None else Ledger())
    runner, port = await listen({"/echo": echo, "/table": table, "/flood": flood}, "127.0.0.1",
                                identity=Ed25519PrivateKey.generate(), door=door)
    try:
        yield port, door
    finally:
        await runner.cleanup()


async def idle(port: int, source: str = "127.0.0.1", tls: bool = False) -> Stream:
    """A connection from ``source`` that says nothing (after the TLS handshake, with ``tls``)."""
    context = client_context(None) if tls else None
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0), ssl=context,
                                         server_hostname="" if tls else None)


async def closed(stream: Stream, within: float = TIMEOUT) -> bool:
    """Whether the listener closes ``stream`` within ``within`` seconds (the test's limit)."""
    try:
        return await asyncio.wait_for(stream[0].read(), within) == b""
    except TimeoutError:
        return False
    except (ConnectionError, ssl.SSLError):
        return True


async def closed_at_once(stream: Stream) -> bool:
    """Whether ``stream`` is closed already (within a moment), not left open."""
    return await closed(stream, 2.0)


async def echoes(port: int, session: aiohttp.ClientSession) -> None:
    """A websocket link to the echo route answers (then closes)."""
    async with session.ws_connect(f"wss://127.0.0.1:{port}/echo", ssl=client_context(None)) as socket:
        await socket.send_bytes(b"ping")
        assert (await asyncio.wait_for(socket.receive(), TIMEOUT)).data == b"ping"


def session_from(source: str) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(source, 0)))


def test_a_source_is_an_address() -> None:
    assert source_of(("192.0.2.7", 4000)) == "192.0.2.7"
    # Every machine of a LAN shares its /64 (and every link-local address is in fe80::/64).
    assert source_of(("2001:db8:1:2::1", 4000, 0, 0)) != source_of(("2001:db8:1:2::2", 4000, 0, 0))
    assert source_of(("fe80::1%eth0", 4000, 0, 2)) == "fe80::1"
    assert source_of(("::ffff:192.0.2.7", 4000, 0, 0)) == "192.0.2.7"  # an IPv4 client on a dual socket
    assert source_of(None) == source_of(("not an address", 1)) == "?"


async def test_a_connection_that_does_not_become_a_link_in_time_is_closed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Idle TCP (no TLS hello), and TLS with no request, are closed at the deadline; a link that
    was up before it stays, and answers after it."""
    monkeypatch.setattr(listener, "UPGRADE_WITHIN", 0.5)
    async with (serving() as (port, door), aiohttp.ClientSession() as session,
                session.ws_connect(f"wss://127.0.0.1:{port}/echo", ssl=client_context(None)) as link):
        silent, quiet = await idle(port), await idle(port, tls=True)
        assert await closed(silent) and await closed(quiet)
        assert door.expired == 2 and door.open == {"127.0.0.1": 1} and door.upgrading == 0
        await link.send_bytes(b"still here")
        assert (await asyncio.wait_for(link.receive(), TIMEOUT)).data == b"still here"


@pytest.mark.parametrize("request_line", [b"GET /table", b"GET /echo", b"GET /nowhere"])
async def test_a_plain_answer_closes_its_connection(request_line: bytes) -> None:
    """``GET /table`` is answered, a websocket route asked without the upgrade is refused
    (400), an unknown route is not found (404): each connection ends with its answer (aiohttp
    would keep it for the next request, an hour by default), so asking again and again on one
    connection holds nothing."""
    async with serving() as (port, door):
        reader, writer = await idle(port, tls=True)
        writer.write(request_line + b" HTTP/1.1\r\nHost: p2p10\r\n\r\n")
        answer = await asyncio.wait_for(reader.read(), TIMEOUT)  # up to the end the listener puts
        status = {b"GET /table": b"200", b"GET /echo": b"400", b"GET /nowhere": b"404"}[request_line]
        assert answer.startswith(b"HTTP/1.1 " + status) and reader.at_eof(), answer
        if status == b"200":
            assert answer.endswith(b'{"table": "Kitchen"}')
        await eventually(lambda: not door.open, 2.0)  # (the listener's side comes a moment later)
        assert door.expired == 0


async def test_one_source_holds_only_its_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """Beyond its share a source's next connection is closed at once, before TLS, links and
    connections on their way in alike; another source still comes in, until all the places are
    taken; a place given back is taken again."""
    monkeypatch.setattr(listener, "OPEN_PER_SOURCE", 3)
    monkeypatch.setattr(listener, "OPEN_AT_ALL", 5)
    monkeypatch.setattr(listener, "UPGRADE_WITHIN", TIMEOUT)  # no deadline in this test's time
    async with serving() as (port, door), session_from("127.0.0.2") as stranger:
        links = [await stranger.ws_connect(f"wss://127.0.0.1:{port}/echo", ssl=client_context(None))
                 for _ in range(2)]
        held = [await idle(port, "127.0.0.2")]
        one_more = await idle(port, "127.0.0.2")
        assert await closed_at_once(one_more) and door.refused == 1
        async with session_from("127.0.0.3") as other:
            await echoes(port, other)  # another source: in, and gone again
        held += [await idle(port, "127.0.0.3", tls=True) for _ in range(2)]
        assert door.open.total() == 5
        full = await idle(port, "127.0.0.4")
        assert await closed_at_once(full) and door.refused == 2
        assert not any(await asyncio.gather(*(closed_at_once(stream) for stream in held)))
        await links[0].close()  # a place given back
        async with session_from("127.0.0.4") as newcomer:
            await eventually(lambda: door.open.total() < 5, 2.0)
            await echoes(port, newcomer)
        await links[1].send_bytes(b"ping")  # the stranger's other link was never touched
        assert (await asyncio.wait_for(links[1].receive(), TIMEOUT)).data == b"ping"
        await links[1].close()
        for _reader, writer in held:
            writer.close()


async def test_the_share_is_of_the_whole_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host's listener and its bots' share the process's file descriptors: the limits hold
    for all of them together."""
    monkeypatch.setattr(listener, "OPEN_PER_SOURCE", 2)
    ledger = Ledger()
    async with serving(ledger) as (first, one), serving(ledger) as (second, other):
        held = [await idle(first, "127.0.0.2"), await idle(second, "127.0.0.2")]
        third = await idle(second, "127.0.0.2")
        assert await closed_at_once(third) and other.refused == 1 and one.refused == 0
        assert ledger.open == {"127.0.0.2": 2} and one.open == other.open == {"127.0.0.2": 1}
        for _reader, writer in held:
            writer.close()


async def test_a_link_that_takes_nothing_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A link whose other end reads nothing (its window shut) would hold its connection for as
    long as the listener runs: a link's close waits for what it sends. It is closed once
    nothing has been taken for the time allowed."""
    monkeypatch.setattr(listener, "STALLED_WITHIN", 0.5)
    async with serving() as (port, door), aiohttp.ClientSession() as session:
        link = await session.ws_connect(f"wss://127.0.0.1:{port}/flood", ssl=client_context(None))
        await eventually(lambda: door.stalled > 0, TIMEOUT)  # the link reads nothing meanwhile
        assert door.stalled == 1
        await eventually(lambda: not door.open, 2.0)
        await link.close()


async def test_a_stranger_holding_connections_open_does_not_keep_a_player_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack A51: a stranger at 127.0.0.2 holds as many idle connections to the host as it
    can, plain and TLS, and asks for more. The ones beyond its share are closed at once, the rest
    at the deadline; a player from 127.0.0.1 sits down meanwhile, and the game is played to the
    end and audits clean."""
    monkeypatch.setattr(listener, "UPGRADE_WITHIN", 5.0)
    said: list[str] = []
    rules = RuleSet.parse(["hands=1"])
    host = Host("Ann", 2, rules, "greedy", "127.0.0.1", save_dir=tmp_path / "ann", say=said.append,
                advertised=False)
    hosting = asyncio.ensure_future(host.run())
    while not said:
        assert not hosting.done(), hosting
        await asyncio.sleep(0.01)
    port = int(said[0].rpartition(":")[2])  # "listening on 127.0.0.1:PORT"
    share = listener.OPEN_PER_SOURCE
    held = [await idle(port, "127.0.0.2", tls=index % 2 == 1) for index in range(share)]
    beyond = [await idle(port, "127.0.0.2") for _ in range(5)]
    assert listener.PROCESS.open["127.0.0.2"] == share  # (the host's door keeps the process's)
    assert all(await asyncio.gather(*(closed_at_once(stream) for stream in beyond)))
    bob = Joiner(f"127.0.0.1:{port}", "Bob", "greedy", "127.0.0.1", tmp_path / "bob", say=lambda _: None)
    results = await asyncio.wait_for(asyncio.gather(hosting, bob.run()), TIMEOUT)
    assert all(result.log_path is not None for result in results)
    logs = [result.log_path.read_bytes() for result in results if result.log_path is not None]
    assert logs[0] == logs[1] and audit_bytes(logs[0]).clean
    assert all(await asyncio.gather(*(closed(stream) for stream in held)))


async def test_a_listener_that_stops_closes_the_connections_on_their_way_in() -> None:
    async with serving() as (port, door):
        waiting = [await idle(port), await idle(port, tls=True)]
        assert door.open.total() == 2
    assert all(await asyncio.gather(*(closed_at_once(stream) for stream in waiting)))


async def test_a_flood_from_many_sources_does_not_keep_a_roster_machine_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack A60: strangers from many sources take every place of a listener (and keep asking
    for more) once the table has started. A machine of the roster dialling back still gets its
    link: beyond the limits a connection is taken on probation and must prove a roster key in
    its TLS handshake (its certificate), or is closed; when the probation places are full, the
    oldest of the source holding the most is closed to make room. Before the table starts
    (no roster) a connection beyond the limits is closed at once, as before."""
    monkeypatch.setattr(listener, "OPEN_PER_SOURCE", 8)
    monkeypatch.setattr(listener, "OPEN_AT_ALL", 40)
    monkeypatch.setattr(listener, "UPGRADE_WITHIN", TIMEOUT)  # no deadline in this test's time
    seat = Ed25519PrivateKey.generate()
    async with serving() as (port, door):
        held = [await idle(port, f"127.0.0.{10 + index // 8}") for index in range(40)]
        assert door.open.total() == 40
        early = await idle(port, "127.0.0.20")
        assert await closed_at_once(early) and door.refused == 1  # no roster yet: no reserve
        door.reserve_for([seat.public_key().public_bytes_raw()])
        # More strangers, from many sources, more than the probation places.
        beyond = [await idle(port, f"127.0.0.{30 + index % 4}")
                  for index in range(listener.RESERVE + 8)]
        async with session_from("127.0.0.50") as back:
            async with back.ws_connect(f"wss://127.0.0.1:{port}/echo", ssl=client_context(seat)) as link:
                await link.send_bytes(b"back")
                assert (await asyncio.wait_for(link.receive(), TIMEOUT)).data == b"back"
            # (one more made room for the machine, which proved its key and left probation)
            assert door.evicted == 9 and len(door.probation) == listener.RESERVE - 1
            # A stranger who gets through TLS on probation with a key of its own is closed.
            stranger = await idle(port, "127.0.0.51", tls=True)
            assert await closed_at_once(stranger)
        assert not any(await asyncio.gather(*(closed_at_once(stream) for stream in held[:4])))
        for _reader, writer in held + beyond:
            writer.close()


async def test_a_flood_from_few_sources_makes_room_from_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack A60, the probation places: strangers from two sources keep opening connections
    beyond the limits; each newcomer closes the oldest probation connection of the source that
    holds the most, so the one connection of a seat on its way in (its TLS handshake not done
    yet) is never the one closed."""
    monkeypatch.setattr(listener, "OPEN_PER_SOURCE", 4)
    monkeypatch.setattr(listener, "OPEN_AT_ALL", 8)
    monkeypatch.setattr(listener, "UPGRADE_WITHIN", TIMEOUT)
    async with serving() as (port, door):
        held = [await idle(port, f"127.0.0.{10 + index // 4}") for index in range(8)]
        door.reserve_for([Ed25519PrivateKey.generate().public_key().public_bytes_raw()])
        seat = await idle(port, "127.0.0.60")  # says nothing yet: a handshake under way
        flood = [await idle(port, f"127.0.0.{30 + index % 2}") for index in range(3 * listener.RESERVE)]
        await eventually(lambda: door.evicted == 2 * listener.RESERVE + 1, 2.0)
        assert not await closed_at_once(seat)
        assert sum(1 for c in door.probation if c.source == "127.0.0.60") == 1
        for _reader, writer in [*held, seat, *flood]:
            writer.close()
