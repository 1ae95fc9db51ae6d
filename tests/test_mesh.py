"""The peer mesh over real websockets on 127.0.0.1, in one process: a whole game, and the
links that must be refused or closed (a stranger's key, a malformed frame, an oversized frame)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.audit import audit_records
from p2p10.bots import POLICIES
from p2p10.log import public_bytes, read_records
from p2p10.peer import MAX_MESSAGE_BYTES, Peer, encode_want
from p2p10.rules import RuleSet
from p2p10.signing import Domain, sign
from protocol.listener import listen
from protocol.memory import make_peers
from protocol.mesh import CLOSE_POLICY, MESH_PATH, Mesh, attach_files
from protocol.mesh_link import RATE_BURST, RATE_PER_SECOND, hello_message
from protocol.tls import client_context

HOST = "127.0.0.1"
NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"]


class Table:
    """Three bot peers, each with its own mesh listening on loopback."""

    def __init__(self, peers: list[Peer], meshes: list[Mesh], runners: list[web.AppRunner],
                 ports: list[int], table_id: bytes) -> None:
        self.peers, self.meshes, self.runners, self.ports, self.table_id = (
            peers, meshes, runners, ports, table_id)
        self.keys = [public_bytes(p.identity) for p in peers]

    async def play(self, tmp_path: Path) -> list[Path]:
        paths = [tmp_path / f"seat{p.seat + 1}.p2p10" for p in self.peers]
        writers = [attach_files(p, path) for p, path in zip(self.peers, paths, strict=True)]
        names = NAMES[:len(self.peers)]
        rules = RuleSet.parse(["hands=1"])
        self.peers[0].open_table([p.sit_down(self.table_id, name, rules)
                                  for p, name in zip(self.peers, names, strict=True)])
        try:
            await asyncio.wait_for(asyncio.gather(*(
                mesh.run(lambda p=peer: p.finished or p.stopped, linger=0.5)  # type: ignore[misc]
                for mesh, peer in zip(self.meshes, self.peers, strict=True))), 25)
        finally:
            for log, secrets in writers:
                log.close()
                secrets.close()
        return paths

    async def close(self) -> None:
        for mesh in self.meshes:
            await mesh.close()
        for runner in self.runners:
            await runner.cleanup()


async def open_mesh_table(players: int = 3, rate: float = RATE_PER_SECOND,
                          burst: float = RATE_BURST) -> Table:
    peers = make_peers([POLICIES["greedy"]] * players)
    table_id = os.urandom(16)
    meshes = [Mesh(peer, table_id, rate=rate, burst=burst) for peer in peers]
    runners, ports = [], []
    for mesh in meshes:
        runner, port = await listen({MESH_PATH: mesh.handle}, HOST, identity=mesh.peer.identity)
        runners.append(runner)
        ports.append(port)
    keys = [public_bytes(p.identity) for p in peers]
    for mesh in meshes:
        mesh.seat_table(keys, [(HOST, port) for port in ports])
    return Table(peers, meshes, runners, ports, table_id)


async def intrude(session: aiohttp.ClientSession, port: int, identity: Ed25519PrivateKey,
                  table_id: bytes, tls_identity: Ed25519PrivateKey | None = None
                  ) -> aiohttp.ClientWebSocketResponse:
    """Dial a peer and do the handshake as ``identity`` (seated or not), over TLS presenting
    the certificate of ``tls_identity`` (the same identity if None)."""
    socket = await session.ws_connect(f"https://{HOST}:{port}{MESH_PATH}",
                                      ssl=client_context(tls_identity or identity))
    key, mine = public_bytes(identity), os.urandom(32)
    await socket.send_bytes(key + mine)
    hello = await socket.receive()
    assert hello.type == aiohttp.WSMsgType.BINARY
    their_key, theirs = hello.data[:32], hello.data[32:]
    message = hello_message(table_id, mine, theirs, key, their_key)
    await socket.send_bytes(sign(identity, Domain.HANDSHAKE, message))
    return socket


async def close_code(socket: aiohttp.ClientWebSocketResponse) -> int | None:
    """Read until the peer closes the link; its close code."""
    while True:
        message = await asyncio.wait_for(socket.receive(), 5)
        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING):
            return socket.close_code


def assert_same_clean_logs(paths: list[Path]) -> None:
    logs = [path.read_bytes() for path in paths]
    assert all(log == logs[0] for log in logs)
    records = read_records(logs[0])
    report = audit_records(records.items, records.torn)
    assert report.clean, report.verdict()


async def test_three_peers_play_a_game_over_loopback(tmp_path: Path) -> None:
    table = await open_mesh_table()
    try:
        paths = await table.play(tmp_path)
    finally:
        await table.close()
    assert all(p.finished and not p.stopped for p in table.peers)
    assert_same_clean_logs(paths)


async def test_six_peers_redial_links_cut_mid_game(tmp_path: Path) -> None:
    table = await open_mesh_table(players=6)

    async def cut() -> None:
        while len(table.peers[0].log) < 20:
            await asyncio.sleep(0.01)
        # One link closed by its dialler (seat 1 dials seat 6), one by its listener (seat 5,
        # dialled by seat 2): both times the dialler dials again.
        await table.meshes[0].links[5].socket.close()
        await table.meshes[4].links[1].socket.close()

    cutter = asyncio.ensure_future(cut())
    try:
        paths = await table.play(tmp_path)
    finally:
        cutter.cancel()
        await table.close()
    assert cutter.done() and not cutter.cancelled()
    assert sum(m.linked for m in table.meshes) >= 6 * 5 + 2 * 2
    assert all(p.finished and not p.stopped and not p.faults for p in table.peers)
    assert_same_clean_logs(paths)


async def test_a_strangers_key_is_refused() -> None:
    table = await open_mesh_table()
    stranger = Ed25519PrivateKey.generate()
    try:
        async with aiohttp.ClientSession() as session:
            socket = await intrude(session, table.ports[1], stranger, table.table_id)
            assert await close_code(socket) == CLOSE_POLICY
            # A seated key whose proof is for another table is refused just the same.
            socket = await intrude(session, table.ports[1], table.peers[2].identity, os.urandom(16))
            assert await close_code(socket) == CLOSE_POLICY
    finally:
        await table.close()
    assert table.meshes[1].refused == 2
    assert not table.meshes[1].links


@pytest.mark.parametrize("frame", [b"\xc1 not msgpack", b"\x92\x05\x05", bytes(MAX_MESSAGE_BYTES + 1)],
                         ids=["malformed", "unknown-type", "oversized"])
async def test_a_bad_frame_closes_its_link_and_the_game_goes_on(tmp_path: Path, frame: bytes) -> None:
    table = await open_mesh_table()
    try:
        async with aiohttp.ClientSession() as session:
            # Seat 2's own key (a seated peer gone bad) sends garbage to seat 0.
            socket = await intrude(session, table.ports[0], table.peers[2].identity, table.table_id)
            await socket.send_bytes(frame)
            # Over TLS, the listener may tear the connection down while an oversized frame is
            # still arriving: the close frame then never reaches the sender (1006).
            closes = (CLOSE_POLICY, aiohttp.WSCloseCode.MESSAGE_TOO_BIG, aiohttp.WSCloseCode.ABNORMAL_CLOSURE)
            assert await close_code(socket) in (closes if len(frame) > MAX_MESSAGE_BYTES else closes[:1])
        assert table.meshes[0].refused == 1
        paths = await table.play(tmp_path)
    finally:
        await table.close()
    closed = [f for f in table.peers[0].faults if f.reason.startswith("link closed")]
    assert len(closed) == 1 and closed[0].seat == 2
    assert_same_clean_logs(paths)


async def test_a_flood_of_frames_closes_its_link() -> None:
    table = await open_mesh_table(rate=50.0, burst=100.0)
    try:
        async with aiohttp.ClientSession() as session:
            socket = await intrude(session, table.ports[0], table.peers[1].identity, table.table_id)
            for _ in range(300):
                await socket.send_bytes(encode_want(0))  # well formed, but far too many
            assert await close_code(socket) == CLOSE_POLICY
    finally:
        await table.close()
    assert table.meshes[0].refused == 1
    assert [f.seat for f in table.peers[0].faults] == [1]


async def test_equivocation_over_the_mesh_freezes_every_peer_and_keeps_the_evidence(
        tmp_path: Path) -> None:
    """Seat 2 signs two different key entries for one position and sends one to seat 1, the
    other to seat 3: every honest peer ends up holding both (each relays what it accepts), and
    freezes, naming seat 2; the two signed twins are saved beside the log, and they verify."""
    import msgpack

    from p2p10.log import make_entry, parse_entry
    from p2p10.peer import encode_entry_message
    from protocol.lan import EVIDENCE_LABEL, GameResult, save_evidence
    from protocol.storage import evidence_path

    table = await open_mesh_table(3)
    twins: list[bytes] = []

    class Equivocator(Peer):
        def _write(self, kind: str, body: object) -> None:
            if kind != "key" or twins:
                super()._write(kind, body)
                return
            state = self._table()
            twin = make_entry(self.identity, state.game_id, len(self.log), state.last_hash,
                              self.seat, kind, [*body[:3], bytes(32)])  # type: ignore[index]
            super()._write(kind, body)
            dest, _message = self._outbox.pop()
            assert dest is None
            self._outbox += [(0, encode_entry_message(self.log[-1].raw)),
                             (2, encode_entry_message(twin.raw))]
            twins.extend([self.log[-1].raw, twin.raw])

    table.peers[1].__class__ = Equivocator
    try:
        paths = await table.play(tmp_path)
    finally:
        await table.close()
    assert len(twins) == 2
    for peer, path in zip(table.peers, paths, strict=True):
        if peer.seat == 1:
            continue
        assert peer.stopped and peer.equivocation is not None
        reason = peer.stop_reason()
        assert reason is not None and reason.startswith("Bob (seat 2) signed two different entries")
        saved = save_evidence(peer, path)
        assert saved == evidence_path(path)
        label, said, entries = msgpack.unpackb(saved.read_bytes(), raw=False)
        assert label == EVIDENCE_LABEL and said == reason and sorted(entries) == sorted(twins)
        # Anybody can check the twins with seat 2's key from the table entry.
        assert peer.table is not None
        for raw in entries:
            assert parse_entry(raw).verify(peer.table.verifiers[1])
        summary = GameResult(peer, path).summary()
        assert summary.startswith("the table stopped: Bob (seat 2) signed") and str(saved) in summary
