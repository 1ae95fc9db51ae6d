"""What one link of the mesh costs the peer that answers it (issue 24 point 4): the time of an
honest catch-up of a 4,000-entry log fetched 256 entries at a time, and the most bytes the peer
holds for one link whose other side sends wants and never reads.

Prints measurements, never pass/fail. See benchmarks/README.md.

    python benchmarks/bench_mesh_links.py                 # 5 catch-ups, one want flood
    python benchmarks/bench_mesh_links.py --runs 3
    python benchmarks/bench_mesh_links.py --against DIR   # the same in a checkout at DIR too
                                                          # (e.g. the code before), and the ratio

Everything runs on 127.0.0.1 in one process: one peer's mesh (TLS websockets, as in a game)
answers a client that does the seat's handshake. The log is a real game's entries repeated to
4,000 (the answering side sends what it holds; it does not check it again).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from p2p10.bots import POLICIES
from p2p10.log import public_bytes
from p2p10.peer import WANT_BATCH, decode_message, encode_want
from p2p10.rules import RuleSet
from p2p10.signing import Domain, sign
from protocol.gallery import QUEUE_LIMIT, Gallery, Spectator
from protocol.listener import listen
from protocol.lobby import Gate
from protocol.lobby_messages import pack
from protocol.memory import play_table
from protocol.mesh import MESH_PATH, Mesh
from protocol.mesh_link import hello_message
from protocol.tls import client_context

HOST = "127.0.0.1"
ENTRIES = 4000


def queued_bytes(mesh: Mesh, seat: int) -> int:
    """Bytes waiting on the link to ``seat`` now (read from the queue itself, so that the code
    before the bound is measured the same way)."""
    link = mesh.links.get(seat)
    return sum(len(item) for item in link.queue._queue) if link is not None else 0  # type: ignore[attr-defined,misc]


async def measure(runs: int) -> dict[str, Any]:
    game = play_table([POLICIES["greedy"]] * 3, RuleSet.parse(["hands=1"]), seed=24)
    peer, seat = game.peers[0], game.peers[1]
    peer.log = (game.log * (ENTRIES // len(game.log) + 1))[:ENTRIES]
    table_id = os.urandom(16)
    mesh = Mesh(peer, table_id)
    runner, port = await listen({MESH_PATH: mesh.handle}, HOST, identity=peer.identity)
    mesh.seat_table([public_bytes(p.identity) for p in game.peers], [None] * 3)

    async def connect(session: aiohttp.ClientSession) -> aiohttp.ClientWebSocketResponse:
        socket = await session.ws_connect(f"https://{HOST}:{port}{MESH_PATH}", max_msg_size=1 << 20,
                                          ssl=client_context(seat.identity))
        key, mine = public_bytes(seat.identity), os.urandom(32)
        await socket.send_bytes(key + mine)
        hello = await socket.receive()
        message = hello_message(table_id, mine, hello.data[32:], key, hello.data[:32])
        await socket.send_bytes(sign(seat.identity, Domain.HANDSHAKE, message))
        await socket.receive()  # the listener's proof (the benchmark trusts its own peer)
        return socket

    times: list[float] = []
    async with aiohttp.ClientSession() as session:
        for _ in range(runs):
            socket = await connect(session)
            started = time.perf_counter()
            got = 0
            await socket.send_bytes(encode_want(0))
            while got < ENTRIES:
                message = await socket.receive()
                if message.type != aiohttp.WSMsgType.BINARY:
                    raise RuntimeError(f"the link ended: {message.type}")
                kind, _value = decode_message(message.data)
                if kind == 0:
                    got += 1
                    if got % WANT_BATCH == 0:
                        await socket.send_bytes(encode_want(got))
            times.append(time.perf_counter() - started)
            await socket.close()
            await asyncio.sleep(0.2)
        # The flood: 200 wants, each for the next position, and never a frame read.
        socket = await connect(session)
        most = 0
        for seq in range(200):
            await socket.send_bytes(encode_want(seq * 20 % ENTRIES))
            await asyncio.sleep(0.01)
            most = max(most, queued_bytes(mesh, 1))
        for _ in range(100):
            await asyncio.sleep(0.02)
            most = max(most, queued_bytes(mesh, 1))
        most = max(most, getattr(mesh, "most_queued", {}).get(1, 0))
        closed = 1 not in mesh.links
        await socket.close()
    await mesh.close()
    await runner.cleanup()
    # A spectator that never reads, at the host's watch server: the game's entries as they
    # come (the log three times over), and the most bytes waiting for it before it is dropped.
    gallery = Gallery(8, lambda _line: None, Gate(None, public_bytes(peer.identity)))
    spectator = Spectator("Sam", None, None, asyncio.Queue(QUEUE_LIMIT))  # type: ignore[arg-type]
    gallery.spectators.append(spectator)
    watched: int = 0
    for entry in peer.log * 3:
        if spectator.dropped:
            break
        gallery._send(pack(["entry", entry.raw]))
        watched = max(watched, sum(len(item) for item in spectator.queue._queue))  # type: ignore[attr-defined,misc]
    return {"spectator_most_bytes": watched, "spectator_dropped": spectator.dropped,
            "entry_mean_bytes": statistics.mean(len(e.raw) for e in peer.log),
            "catch_up_median_s": statistics.median(times), "catch_up_runs": len(times),
            "flood_most_bytes": most, "flood_link_closed": closed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--against", type=Path, help="a checkout to measure the same way")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = asyncio.run(measure(args.runs))
    if args.against is not None:
        env = dict(os.environ, PYTHONPATH=str(args.against))
        out = subprocess.run([sys.executable, "-c",
                              f"import sys; sys.argv=['x','--runs','{args.runs}','--json']; "
                              f"sys.path.insert(0, {str(args.against)!r}); "
                              f"exec(open({__file__!r}).read().replace('sys.path.insert(0, str(Path(__file__)"
                              f".resolve().parent.parent))', ''))"],
                             env=env, capture_output=True, text=True, check=True)
        before = json.loads(out.stdout.strip().splitlines()[-1])
        figures["before_catch_up_median_s"] = before["catch_up_median_s"]
        figures["before_flood_most_bytes"] = before["flood_most_bytes"]
        figures["before_flood_link_closed"] = before["flood_link_closed"]
        figures["before_spectator_most_bytes"] = before["spectator_most_bytes"]
        figures["catch_up_ratio"] = figures["catch_up_median_s"] / before["catch_up_median_s"]
    if args.json:
        print(json.dumps(figures))
        return
    for name, value in figures.items():
        print(f"{name}: {value:.3f}" if isinstance(value, float) else f"{name}: {value}")


if __name__ == "__main__":
    main()
