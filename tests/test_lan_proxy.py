"""LAN play over a faulty network: separate ``p2p10 host`` and ``p2p10 join`` processes on
127.0.0.1, every mesh link through a proxy (:mod:`tests.frame_proxy`) that drops, duplicates,
delays and so reorders frames, and cuts whole connections now and then. The game still ends,
with every seat's log byte-identical and audit clean, and the proxies prove that they did
inject the faults (a test whose network did nothing would prove nothing).

Each peer is started with ``--reachable-at 127.0.0.1:PROXY_PORT``, so the other peers dial its
proxy, never its listener. The proxy learns where the peer really listens from the roster the
peer saves beside its log at the start of the game (a joiner listens on a port nobody knows in
advance); a link that arrives before that waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import re
import subprocess
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from p2p10.audit import audit_bytes
from p2p10.bots import POLICIES
from p2p10.log import public_bytes
from p2p10.peer import Peer
from p2p10.rules import RuleSet
from protocol.lan import WILDCARD, LanError, read_roster
from protocol.memory import make_peers
from protocol.mesh import MESH_PATH, Mesh, listen
from tests.frame_proxy import Counts, Faults, FaultyNetwork, FrameProxy
from tests.test_lan_processes import environment, p2p10, read_port, stop

GAME_TIMEOUT = 120.0  # generous: a loaded machine, and every lost frame waits for a resend
NAMES = ("Ann", "Bob", "Cy")


def saved_listener(folder: Path) -> tuple[str, int] | None:
    """Where the peer saving in ``folder`` listens, once its roster is saved (None before)."""
    for path in folder.glob("*.p2p10-roster"):
        try:
            host, port = read_roster(path)[3]
        except LanError:
            return None  # not there any more, or being replaced: ask again in a moment
        return ("127.0.0.1" if host in WILDCARD else host, port)
    return None


def play_through_proxies(tmp_path: Path, faults: Faults, seed: int) -> tuple[list[Path], list[Counts]]:
    """A three-seat game of ``hands=1``, every peer behind its own faulty proxy; the logs and
    the proxies' counts, in seat order, once every process has ended well."""
    env = environment(tmp_path)
    dirs = [tmp_path / name.lower() for name in NAMES]
    procs: list[subprocess.Popen[str]] = []
    with FaultyNetwork() as network:
        # Nobody dials seat 1 (the lower seat dials), but every peer gets a proxy all the same.
        proxies = [network.proxy(functools.partial(saved_listener, folder), faults, seed * 10 + i)
                   for i, folder in enumerate(dirs)]
        try:
            procs.append(subprocess.Popen(
                p2p10("host", "--name", NAMES[0], "--autoplay", "greedy", "--seats", "3",
                      "--start-when-full", "--interface", "127.0.0.1", "--quiet-network",
                      "--reachable-at", f"127.0.0.1:{proxies[0].port}", "-o", "hands=1",
                      "--save", str(dirs[0])),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
            port = read_port(procs[0])
            for name, folder, proxy in zip(NAMES[1:], dirs[1:], proxies[1:], strict=True):
                procs.append(subprocess.Popen(
                    p2p10("join", f"127.0.0.1:{port}", "--name", name, "--autoplay", "greedy",
                          "--interface", "127.0.0.1", "--reachable-at", f"127.0.0.1:{proxy.port}",
                          "--save", str(folder)),
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
            try:
                outputs = [proc.communicate(timeout=GAME_TIMEOUT) for proc in procs]
            except subprocess.TimeoutExpired:
                stop(procs)
                stuck = [proc.communicate() for proc in procs]
                raise AssertionError(f"the game did not end: {stuck}; {network.total()}") from None
        finally:
            stop(procs)
    counts = [proxy.counts for proxy in proxies]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, (out, err, str(network.total()))
        assert re.search(r"^game over: .+ won; log /.+\.p2p10$", out, re.M), (out, err)
    return [next(folder.glob("*.p2p10")) for folder in dirs], counts


# Seat 3's proxy carries two links (seats 1 and 2 dial it), seat 2's one (seat 1 dials it),
# seat 1's none. A game of hands=1 for three is about 120 entries, each passed on by every
# peer: some 300 to 1200 frames through the proxies, two thirds of them through seat 3's.
CASES = {
    "lossy": (Faults(drop=0.1, duplicate=0.1, delay=0.2, max_delay=0.2, cuts=2, cut_after=(30, 80)), 1),
    "harsh": (Faults(drop=0.2, duplicate=0.2, delay=0.3, max_delay=0.25, cuts=3, cut_after=(20, 60)), 2),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_game_over_a_faulty_network_ends_with_one_clean_log(tmp_path: Path, case: str) -> None:
    faults, seed = CASES[case]
    logs, counts = play_through_proxies(tmp_path, faults, seed)
    data = [log.read_bytes() for log in logs]
    assert all(d == data[0] for d in data), [len(d) for d in data]
    report = audit_bytes(data[0])
    assert report.clean and report.complete, report.verdict()
    assert report.table is not None and sorted(report.table.names) == sorted(NAMES)
    # The network really was faulty: every fault happened, and the mesh redialled past the cuts.
    total = sum(counts, Counts())
    print(f"{case}: {total}")
    assert counts[0].connections == 0 and counts[1].connections and counts[2].connections, counts
    assert total.frames > 150, total
    assert total.dropped > 0 and total.duplicated > 0 and total.delayed > 0, total
    assert total.reordered > 0, total
    # Every cut that the frames through a proxy reached (a short game may not reach the last).
    for proxy in counts:
        assert proxy.cuts == faults.cuts or proxy.frames < faults.cuts * faults.cut_after[1], counts
    assert counts[2].cuts >= 1 and total.connections >= 3 + 1, counts  # dialled again after a cut


# ------------------------------------------------------------------- the proxy on its own


async def echo(request: web.Request) -> web.WebSocketResponse:
    socket = web.WebSocketResponse()
    await socket.prepare(request)
    async for message in socket:
        await socket.send_bytes(message.data)
    return socket


async def exchange(faults: Faults, frames: int, seed: int = 0) -> tuple[list[int], Counts]:
    """Send ``frames`` numbered frames through a proxy to an echo server and back; the numbers
    that came back, in order, and the proxy's counts."""
    app = web.Application()
    app.router.add_get("/mesh", echo)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    upstream = ("127.0.0.1", int(runner.addresses[0][1]))
    got: list[int] = []
    try:
        with FaultyNetwork() as network:
            proxy = network.proxy(upstream, faults, seed)
            async with aiohttp.ClientSession() as session, \
                    session.ws_connect(f"http://127.0.0.1:{proxy.port}/mesh") as socket:
                with contextlib.suppress(ConnectionError):  # a cut may come before the last
                    for n in range(frames):
                        await socket.send_bytes(n.to_bytes(4, "big"))
                while True:
                    try:
                        message = await socket.receive(timeout=0.5 + 2 * faults.max_delay)
                    except TimeoutError:
                        break
                    if message.type != aiohttp.WSMsgType.BINARY:
                        break
                    got.append(int.from_bytes(message.data, "big"))
    finally:
        await runner.cleanup()
    return got, network.total()


async def test_a_proxy_without_faults_forwards_every_frame_in_order() -> None:
    got, counts = await exchange(Faults(), 50)
    assert got == list(range(50))
    # Each frame went through twice (there and back); the first 2 each way are the handshake.
    assert counts.connections == 1 and counts.handshake == 4 and counts.frames == 96
    assert counts.dropped == counts.duplicated == counts.delayed == counts.reordered == 0


async def test_a_proxy_drops_duplicates_and_reorders_but_never_invents() -> None:
    faults = Faults(drop=0.2, duplicate=0.2, delay=0.3, max_delay=0.05)
    got, counts = await asyncio.wait_for(exchange(faults, 200, seed=7), 30)
    assert got[:2] == [0, 1]  # the handshake frames pass untouched
    assert set(got) <= set(range(200))
    assert counts.dropped > 0 and counts.duplicated > 0 and counts.reordered > 0, counts
    assert len(got) < 200 * 1.5 and len(set(got)) < len(got) and got != sorted(got)


async def test_a_proxy_cuts_the_connection() -> None:
    got, counts = await exchange(Faults(cuts=1, cut_after=(10, 10)), 50)
    assert counts.cuts == 1 and len(got) < 50
    assert got == list(range(len(got)))


# ------------------------------------------------- the end of the game behind an outage


def over(peer: Peer) -> bool:
    return peer.finished or peer.stopped


async def test_a_peer_that_misses_the_last_entry_still_finishes() -> None:
    """Two peers in this process, seat 2 behind a proxy. The moment the first peer has the
    game's last entry (it wrote it), the network between them goes dark for 3 seconds: a Wi-Fi
    blip at the wrong moment. The other peer must still get that entry and finish once the
    network is back; it cannot unless the first peer is still there to answer it."""
    peers = make_peers([POLICIES["greedy"]] * 2)
    table_id = os.urandom(16)
    keys = [public_bytes(p.identity) for p in peers]
    meshes = [Mesh(peer, table_id) for peer in peers]
    runner, port = await listen({MESH_PATH: meshes[1].handle}, "127.0.0.1")
    session = aiohttp.ClientSession()
    proxy = FrameProxy(("127.0.0.1", port), Faults(), 0, session)
    await proxy.start()
    dark = asyncio.Event()

    def watch(entry: object) -> None:
        if not dark.is_set() and any(p.finished for p in peers):
            proxy.faults = Faults(drop=1.0)  # before the entry is relayed: it never arrives
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
        await asyncio.wait_for(dark.wait(), GAME_TIMEOUT)
        first = next(i for i, p in enumerate(peers) if p.finished)
        late = peers[1 - first]
        assert not late.finished
        await asyncio.sleep(3.0)
        proxy.faults = Faults()  # the network is back
        # A peer that is behind asks again every second (resend_after): 3 chances.
        for _ in range(30):
            if late.finished:
                break
            await asyncio.sleep(0.1)
        gone = "has left the table" if runs[first].done() else "is still there"
        assert late.finished, f"the peer that had the last entry {gone}"
        assert [e.hash for e in late.log] == [e.hash for e in peers[first].log]
        assert proxy.counts.dropped > 0
    finally:
        for run in runs:
            run.cancel()  # mesh.run closes its mesh as it ends
        await asyncio.gather(*runs, return_exceptions=True)
        await proxy.stop()
        await session.close()
        await runner.cleanup()
