"""LAN play over a faulty network: separate ``p2p10 host`` and ``p2p10 join`` processes on
127.0.0.1, every mesh link through a TCP proxy (:mod:`tests.tcp_proxy`) that delays bytes, cuts
whole connections now and then, and injects, corrupts and drops bytes. The game still ends, with
every seat's log byte-identical and audit clean, every process ending well, and nobody blamed:
a stream tampered with is the network's doing, not a seat's (under TLS the link fails its
record check, the peers drop it and redial). The proxies prove that they did inject the faults
(a test whose network did nothing would prove nothing).

Each peer is started with ``--reachable-at 127.0.0.1:PROXY_PORT``, so the other peers dial its
proxy, never its listener. The proxy learns where the peer really listens from the roster the
peer saves beside its log at the start of the game (a joiner listens on a port nobody knows in
advance); a connection that arrives before that waits for it.

The processes print nothing of :attr:`Peer.faults`, so each runs through :data:`WITNESS`, which
runs ``p2p10`` as ``python -m cli`` does and, at exit, prints every peer's faults on standard
error, one :data:`FAULT_MARK` line each (and how many peers it watched: a witness that saw none
would prove nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from p2p10.audit import audit_bytes
from p2p10.bots import POLICIES
from p2p10.log import public_bytes
from p2p10.peer import Peer
from p2p10.rules import RuleSet
from protocol.lan import WILDCARD, LanError, read_roster
from protocol.listener import listen
from protocol.memory import make_peers
from protocol.mesh import MESH_PATH, Mesh
from tests.tcp_proxy import Counts, Faults, FaultyNetwork, TcpProxy
from tests.test_lan_processes import environment, read_port, stop

GAME_TIMEOUT = 240.0  # generous: a loaded machine, and every broken link waits for a redial
NAMES = ("Ann", "Bob", "Cy")
FAULT_MARK = "p2p10-test-fault:"
WATCHED_MARK = "p2p10-test-peers:"  # how many peers the witness watched

# ``python -m cli``, with every peer's faults printed at exit (see the module docstring).
WITNESS = f"""
import atexit, sys
from p2p10 import peer

peers = []
made = peer.Peer.__init__

def keep(self, *args, **kwargs):
    made(self, *args, **kwargs)
    peers.append(self)

peer.Peer.__init__ = keep

@atexit.register
def report():
    print({WATCHED_MARK!r}, len(peers), file=sys.stderr)
    for p in peers:
        for f in p.faults:
            print({FAULT_MARK!r}, f"seat {{p.seat + 1}} blames", "nobody" if f.seat is None
                  else f"seat {{f.seat + 1}}", f"(entry {{f.seq}}): {{f.reason}}", file=sys.stderr)

from cli.main import main
raise SystemExit(main())
"""


def p2p10(*args: str) -> list[str]:
    return [sys.executable, "-c", WITNESS, *args]


def saved_listener(folder: Path) -> tuple[str, int] | None:
    """Where the peer saving in ``folder`` listens, once its roster is saved (None before)."""
    for path in folder.glob("*.p2p10-roster"):
        try:
            host, port = read_roster(path)[3]
        except LanError:
            return None  # not there any more, or being replaced: ask again in a moment
        return ("127.0.0.1" if host in WILDCARD else host, port)
    return None


def described(outputs: list[tuple[str, str]], network: Counts | str) -> str:
    """Every process's output, for a failure message."""
    parts = [f"--- {name}: stdout\n{out}\n--- {name}: stderr\n{err}"
             for name, (out, err) in zip(NAMES, outputs, strict=False)]
    return "\n".join([*parts, f"--- the proxies: {network}"])


During = Callable[[list[TcpProxy], list[Path]], None]
"""What a test does to the network while the game is played: given the proxies and the folders
the peers save in (in the order of :data:`NAMES`), it returns once it is done."""


def play_through_proxies(tmp_path: Path, faults: Faults, seed: int, *, hands: int = 1,
                         play: tuple[str, ...] = (), during: During | None = None,
                         ) -> tuple[list[bytes], list[Counts]]:
    """A three-seat game of ``hands`` hands, every peer behind its own faulty proxy, each
    process given the options ``play`` too; the logs and the proxies' counts, in the order of
    :data:`NAMES`, once every process has ended well (exit 0, a winner, no fault recorded by
    any peer)."""
    env = environment(tmp_path)
    dirs = [tmp_path / name.lower() for name in NAMES]
    procs: list[subprocess.Popen[str]] = []
    outputs: list[tuple[str, str]] = []
    with FaultyNetwork() as network:
        # Nobody dials seat 1 (the lower seat dials), but every peer gets a proxy all the same.
        proxies = [network.proxy(functools.partial(saved_listener, folder), faults, seed * 10 + i)
                   for i, folder in enumerate(dirs)]
        try:
            procs.append(subprocess.Popen(
                p2p10("host", "--name", NAMES[0], "--autoplay", "greedy", "--seats", "3",
                      "--start-when-full", "--interface", "127.0.0.1", "--quiet-network",
                      "--reachable-at", f"127.0.0.1:{proxies[0].port}", "-o", f"hands={hands}",
                      "--save", str(dirs[0]), *play),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, env=env))
            try:
                port = read_port(procs[0])
            except AssertionError as no_port:
                stop(procs)
                raise AssertionError(f"{no_port}\n" + described([procs[0].communicate()], "")) from None
            for name, folder, proxy in zip(NAMES[1:], dirs[1:], proxies[1:], strict=True):
                procs.append(subprocess.Popen(
                    p2p10("join", f"127.0.0.1:{port}", "--name", name, "--autoplay", "greedy",
                          "--interface", "127.0.0.1", "--reachable-at", f"127.0.0.1:{proxy.port}",
                          "--save", str(folder), *play),
                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    text=True, env=env))
            if during is not None:
                during(proxies, dirs)
            try:
                outputs = [proc.communicate(timeout=GAME_TIMEOUT) for proc in procs]
            except subprocess.TimeoutExpired:
                stop(procs)
                stuck = [proc.communicate() for proc in procs]
                raise AssertionError(f"the game did not end in {GAME_TIMEOUT:g} s\n"
                                     + described(stuck, network.total())) from None
        finally:
            stop(procs)
    counts = [proxy.counts for proxy in proxies]
    report = described(outputs, network.total())
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, f"a process ended with {proc.returncode}\n{report}"
        assert re.search(r"^game over: .+ won; log /.+\.p2p10$", out, re.M), f"no winner\n{report}"
        assert FAULT_MARK not in err, f"somebody was blamed\n{report}"
        watched = re.search(rf"^{WATCHED_MARK} (\d+)$", err, re.M)
        assert watched and int(watched.group(1)) >= 1, f"the witness saw no peer\n{report}"
    logs = [next(folder.glob("*.p2p10")).read_bytes() for folder in dirs]
    assert all(log == logs[0] for log in logs), f"the logs differ: {[len(log) for log in logs]}\n{report}"
    audit = audit_bytes(logs[0])
    assert audit.clean and audit.complete, f"{audit.verdict()}\n{report}"
    assert audit.table is not None and sorted(audit.table.names) == sorted(NAMES)
    return logs, counts


# Seat 3's proxy carries two links (seats 1 and 2 dial it), seat 2's one (seat 1 dials it),
# seat 1's none. A game of hands=1 for three is about 120 entries, each passed on by every
# peer: about half a megabyte through the proxies, two thirds of it through seat 3's, in 150
# to 1000 chunks after the handshakes (fewer, larger chunks on a loaded machine, whose reads
# find more waiting). Every byte tampered with breaks its link (over TLS), so the rates stay low
# enough for the game to move between redials.
SLOW = 0.3  # the share of chunks held back, up to 0.2 s (and the chunks behind them)


@pytest.mark.slow
def test_a_game_through_delays_and_cuts_ends_with_one_clean_log(tmp_path: Path) -> None:
    faults = Faults(delay=SLOW, max_delay=0.2, cuts=3, cut_after=(20, 60))
    _logs, counts = play_through_proxies(tmp_path, faults, 1)
    total = sum(counts, Counts())
    print(f"delays and cuts: {total}")
    assert counts[0].connections == 0 and counts[1].connections and counts[2].connections, counts
    assert total.bytes > 200_000 and total.delayed > 0, total  # the game went through them
    # Every cut that the chunks through a proxy reached (a short game may not reach the last).
    for proxy in counts:
        assert proxy.cuts == faults.cuts or proxy.chunks < faults.cuts * faults.cut_after[1], counts
    assert counts[2].cuts >= 1 and total.connections >= 3 + 1, counts  # dialled again after a cut


@pytest.mark.slow
def test_a_game_through_tampered_bytes_ends_with_one_clean_log(tmp_path: Path) -> None:
    """Delays, cuts, and bytes injected, corrupted and dropped: every tampered link breaks and
    is dialled again, and the game goes on as if the network had merely been slow."""
    faults = Faults(delay=SLOW, max_delay=0.2, cuts=2, cut_after=(30, 80),
                    inject=0.03, corrupt=0.03, drop=0.01)
    _logs, counts = play_through_proxies(tmp_path, faults, 2)
    total = sum(counts, Counts())
    print(f"tampered: {total}")
    assert total.chunks > 50 and total.delayed > 0 and total.cuts > 0, total
    assert total.injected > 0 and total.corrupted > 0, total
    assert total.broken > 0 and total.connections > 3 + total.cuts, total  # broken links redialled


@pytest.mark.slow
def test_injected_bytes_blame_nobody(tmp_path: Path) -> None:
    """Bytes injected into the stream, often, from the first byte of every link (its TLS
    handshake too): a machine in the middle cannot make a peer blame a seat, nor stop the game
    (``play_through_proxies`` checks every peer's faults at exit, and the log's audit)."""
    faults = Faults(inject=0.05, handshake_bytes=0)
    _logs, counts = play_through_proxies(tmp_path, faults, 3)
    total = sum(counts, Counts())
    print(f"injected: {total}")
    # How many chunks a game takes depends on the machine's timing (about 270 on a slow one, so
    # about 13 injections expected): at least 5 is what "often" can promise on every machine.
    assert total.injected >= 5 and total.broken > 0 and total.connections > 3, total


# ------------------------------------------------------------------- the proxy on its own


class Sink:
    """An upstream on 127.0.0.1 that keeps every byte it reads, and sends ``reply`` back."""

    def __init__(self, reply: bytes = b"") -> None:
        self.reply = reply
        self.got = bytearray()
        self.ended = asyncio.Event()
        self.connections = 0
        self.address: tuple[str, int] = ("127.0.0.1", 0)
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> Sink:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.address = ("127.0.0.1", int(self._server.sockets[0].getsockname()[1]))
        return self

    async def __aexit__(self, *_exc: object) -> None:
        assert self._server is not None
        self._server.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        with contextlib.suppress(ConnectionError):
            writer.write(self.reply)
            while data := await reader.read(65536):
                self.got += data
        self.ended.set()
        writer.close()


async def send(port: int, pieces: list[bytes], between: float = 0.002,
               during: Callable[[int], None] | None = None) -> bytes:
    """Send ``pieces`` to 127.0.0.1:``port``, a moment apart (so that most are chunks of their
    own); what came back until the other side closed. ``during(i)`` runs before piece ``i``."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)

    async def write() -> None:
        with contextlib.suppress(ConnectionError):
            for i, piece in enumerate(pieces):
                if during is not None:
                    during(i)
                writer.write(piece)
                await writer.drain()
                await asyncio.sleep(between)
            writer.write_eof()

    async def read() -> bytes:
        got = bytearray()
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                got += data
        return bytes(got)

    try:
        _, got = await asyncio.wait_for(asyncio.gather(write(), read()), 30)
    finally:
        writer.close()
    return got


async def through(faults: Faults, pieces: list[bytes], reply: bytes = b"", seed: int = 0,
                  during: Callable[[TcpProxy, int], None] | None = None) -> tuple[bytes, bytes, Counts]:
    """``pieces`` sent through a proxy to a :class:`Sink` answering ``reply``: what the sink
    got, what came back, and the proxy's counts."""
    async with Sink(reply) as sink:
        proxy = TcpProxy(sink.address, faults, seed)
        await proxy.start()
        try:
            back = await send(proxy.port, pieces,
                              during=None if during is None else functools.partial(during, proxy))
            await asyncio.wait_for(sink.ended.wait(), 10)
        finally:
            await proxy.stop()
    return bytes(sink.got), back, proxy.counts


def pieces_of(data: bytes, size: int) -> list[bytes]:
    return [data[i:i + size] for i in range(0, len(data), size)]


def is_subsequence(short: bytes, long: bytes) -> bool:
    rest = iter(long)
    return all(byte in rest for byte in short)


async def test_a_proxy_without_faults_forwards_every_byte_in_order() -> None:
    """Both ways, a megabyte each, through a :class:`FaultyNetwork` (the proxy in its thread)."""
    up, down = os.urandom(1 << 20), os.urandom(1 << 20)
    async with Sink(down) as sink:
        with FaultyNetwork() as network:
            proxy = network.proxy(lambda: sink.address, Faults(), 0)
            back = await send(proxy.port, pieces_of(up, 50_000), between=0)
            await asyncio.wait_for(sink.ended.wait(), 10)
    counts = network.total()
    assert bytes(sink.got) == up and back == down
    assert counts.connections == 1 and counts.bytes == 2 << 20, counts
    assert counts.handshake >= 2 and counts.chunks > 0, counts  # 4096 bytes each way pass first
    assert counts.delayed == counts.dropped == counts.corrupted == counts.injected == 0, counts
    assert counts.cuts == counts.broken == 0, counts


async def test_a_proxy_delays_but_never_reorders() -> None:
    data = os.urandom(40_000)
    faults = Faults(delay=0.5, max_delay=0.05, handshake_bytes=0)
    got, _back, counts = await through(faults, pieces_of(data, 200), seed=1)
    assert got == data
    assert counts.delayed > 20 and counts.broken == 0, counts


async def test_a_proxy_cuts_the_connection() -> None:
    data = os.urandom(20_000)
    got, _back, counts = await through(Faults(cuts=1, cut_after=(10, 10), handshake_bytes=0),
                                       pieces_of(data, 200))
    assert counts.connections == 1 and counts.cuts == 1, counts
    assert 0 < len(got) < len(data) and data.startswith(got)


async def test_a_proxy_corrupts_bytes_one_a_chunk() -> None:
    data = os.urandom(40_000)
    faults = Faults(corrupt=0.3, handshake_bytes=1000)
    got, _back, counts = await through(faults, pieces_of(data, 200), seed=2)
    assert len(got) == len(data) and got[:1000] == data[:1000]
    flipped = sum(a != b for a, b in zip(got, data, strict=True))
    assert flipped == counts.corrupted > 10, counts
    assert counts.broken == 1, counts


async def test_a_proxy_injects_bytes_and_drops_chunks() -> None:
    data = os.urandom(40_000)
    got, _back, counts = await through(Faults(inject=0.3, handshake_bytes=0), pieces_of(data, 200), seed=3)
    assert counts.injected > 10, counts
    assert counts.injected <= len(got) - len(data) <= 8 * counts.injected
    assert is_subsequence(data, got)
    got, _back, counts = await through(Faults(drop=0.2, handshake_bytes=0), pieces_of(data, 200), seed=4)
    assert counts.dropped > 10 and len(got) < len(data) and is_subsequence(got, data), counts


async def test_a_proxy_in_a_blackout_forwards_nothing() -> None:
    """The first half is sent in a blackout, the second once it has lifted (a test swapping
    ``faults`` as it goes): only the second arrives, and the answer sent at once is lost too."""
    data = os.urandom(20_000)
    half = len(pieces_of(data, 200)) // 2

    def lift(proxy: TcpProxy, i: int) -> None:
        if i == half:
            proxy.faults = Faults()

    got, back, counts = await through(Faults(blackout=True), pieces_of(data, 200), reply=b"hello",
                                      during=lift)
    assert got == data[half * 200:] and back == b""
    assert counts.blacked_out > 0 and counts.broken == 1, counts


# ------------------------------------------------- the end of the game behind an outage


def over(peer: Peer) -> bool:
    return peer.finished or peer.stopped


async def test_a_peer_that_misses_the_last_entry_still_finishes() -> None:
    """Two peers in this process, seat 2 behind a proxy. The moment the first peer has the
    game's last entry (it wrote it), the network between them goes dark for 3 seconds: a Wi-Fi
    blip at the wrong moment, every byte sent meanwhile lost. The other peer must still get
    that entry and finish once the network is back (the link broken by the lost bytes dropped
    and dialled again); it cannot unless the first peer is still there to answer it."""
    peers = make_peers([POLICIES["greedy"]] * 2)
    table_id = os.urandom(16)
    keys = [public_bytes(p.identity) for p in peers]
    meshes = [Mesh(peer, table_id) for peer in peers]
    runner, port = await listen({MESH_PATH: meshes[1].handle}, "127.0.0.1", identity=peers[1].identity)
    proxy = TcpProxy(("127.0.0.1", port), Faults(), 0)
    await proxy.start()
    dark = asyncio.Event()

    def watch(entry: object) -> None:
        if not dark.is_set() and any(p.finished for p in peers):
            proxy.faults = Faults(blackout=True)  # before the entry is relayed: it never arrives
            dark.set()

    for peer in peers:
        peer.hooks.listen(entry=watch)
    for mesh in meshes:
        mesh.seat_table(keys, [None, ("127.0.0.1", proxy.port)])
    rules = RuleSet.parse(["hands=1"])
    peers[0].open_table([p.sit_down(table_id, name, rules)
                         for p, name in zip(peers, ["Ann", "Bob"], strict=True)])
    # The CLI's linger (mesh.run's default): how long a finished peer stays for the others.
    runs = [asyncio.ensure_future(mesh.run(functools.partial(over, peer)))
            for mesh, peer in zip(meshes, peers, strict=True)]
    try:
        await asyncio.wait_for(dark.wait(), 120)
        first = next(i for i, p in enumerate(peers) if p.finished)
        late = peers[1 - first]
        assert not late.finished
        await asyncio.sleep(3.0)
        proxy.faults = Faults()  # the network is back
        # The link that lost bytes breaks (at once, or when a heartbeat goes unanswered), is
        # dialled again (a handshake lost in the dark times out first), and the peer that is
        # behind asks for what it missed.
        for _ in range(200):
            if late.finished:
                break
            await asyncio.sleep(0.1)
        gone = "has left the table" if runs[first].done() else "is still there"
        assert late.finished, f"the peer that had the last entry {gone}; {proxy.counts}"
        assert [e.hash for e in late.log] == [e.hash for e in peers[first].log]
        assert proxy.counts.blacked_out > 0, proxy.counts
    finally:
        for run in runs:
            run.cancel()  # mesh.run closes its mesh as it ends
        await asyncio.gather(*runs, return_exceptions=True)
        await proxy.stop()
        await runner.cleanup()
