"""TLS on the mesh and the lobby (:mod:`protocol.tls`), on 127.0.0.1: the port answers a TLS 1.3
handshake with the certificate of the peer's key; a key other than the roster's is refused on
either side of a link; a link that is not TLS is refused; and bytes injected into a link end
that connection without blaming anybody, the game going on to clean, identical logs."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.log import fingerprint, public_bytes
from protocol import tls
from protocol.listener import Handler, listen
from protocol.mesh import MESH_PATH
from protocol.tls import BadCertificate, certificate, certificate_key, peer_key, require_key
from tests.test_mesh import HOST, assert_same_clean_logs, close_code, intrude, open_mesh_table
from tests.test_mesh import Table as MeshTable


def test_a_keys_certificate_is_always_the_same_and_carries_the_key() -> None:
    identity = Ed25519PrivateKey.generate()
    cert = certificate(identity)
    assert cert == certificate(identity)  # deterministic: a resumed peer presents the same one
    assert cert.public_key().public_bytes_raw() == public_bytes(identity)  # type: ignore[union-attr]
    assert fingerprint(public_bytes(identity)) in cert.subject.rfc4514_string()
    assert cert.not_valid_after_utc.year == 9999  # no clock, however wrong, expires a link


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl command on this machine")
async def test_openssl_s_client_sees_the_peers_certificate() -> None:
    table = await open_mesh_table(players=2)
    try:
        process = await asyncio.create_subprocess_exec(
            "openssl", "s_client", "-connect", f"{HOST}:{table.ports[1]}", "-tls1_3", "-showcerts",
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(process.communicate(), 20)
    finally:
        await table.close()
    text = out.decode(errors="replace")
    assert "Protocol  : TLSv1.3" in text or "TLSv1.3" in text, (text, err)
    pem = text[text.index("-----BEGIN CERTIFICATE-----"):text.index("-----END CERTIFICATE-----") + 25]
    cert = x509.load_pem_x509_certificate(pem.encode())
    assert cert.public_key().public_bytes_raw() == table.keys[1]  # type: ignore[union-attr]


async def test_a_plain_connection_is_refused() -> None:
    table = await open_mesh_table(players=2)
    try:
        async with aiohttp.ClientSession() as session:
            with pytest.raises((aiohttp.ClientError, ConnectionError)):
                await session.ws_connect(f"http://{HOST}:{table.ports[1]}{MESH_PATH}")
            with pytest.raises(aiohttp.ClientError):  # nor TLS 1.2
                old = ssl.create_default_context()
                old.check_hostname, old.verify_mode = False, ssl.CERT_NONE
                old.maximum_version = ssl.TLSVersion.TLSv1_2
                await session.ws_connect(f"https://{HOST}:{table.ports[1]}{MESH_PATH}", ssl=old)
    finally:
        await table.close()


async def test_a_dialler_whose_certificate_is_for_another_key_is_refused() -> None:
    """Seat 3's proof of its key over a TLS link that seat 3 did not open (the certificate is a
    stranger's): the handshake alone would pass, the pin refuses it."""
    table = await open_mesh_table()
    stranger = Ed25519PrivateKey.generate()
    try:
        async with aiohttp.ClientSession() as session:
            socket = await intrude(session, table.ports[1], table.peers[2].identity, table.table_id,
                                   tls_identity=stranger)
            assert await close_code(socket) == 1008
    finally:
        await table.close()
    assert table.meshes[1].refused == 1 and not table.meshes[1].links
    assert not table.peers[1].faults  # a refused stranger is nobody's fault at the table


async def test_a_listener_with_another_key_is_never_linked(tmp_path: Path) -> None:
    """Seat 2's address answers with an impostor's certificate: seat 1 dials it again and
    again, but never sends it a frame (not even its hello) and never links."""
    table = await open_mesh_table(players=2)
    impostor = Ed25519PrivateKey.generate()
    handled = 0
    frames: list[aiohttp.WSMessage] = []

    async def handle(request: aiohttp.web.Request) -> aiohttp.web.StreamResponse:
        nonlocal handled
        handled += 1
        socket = aiohttp.web.WebSocketResponse()
        await socket.prepare(request)
        frames.extend([message async for message in socket
                       if message.type == aiohttp.WSMsgType.BINARY])
        return socket

    async with seat_2_answered_by(table, handle, impostor):
        await asyncio.sleep(1.0)
        assert not table.meshes[0].links and table.meshes[0].linked == 0
        assert handled >= 2 and not frames  # dialled again and again; not one frame sent


@contextlib.asynccontextmanager
async def seat_2_answered_by(table: MeshTable, handle: Handler,
                             identity: Ed25519PrivateKey) -> AsyncIterator[asyncio.Future[None]]:
    """Seat 1's mesh running, with seat 2's address answered by ``handle`` under ``identity``'s
    TLS; the mesh's run, for the time of the block (then everything is closed)."""
    runner, port = await listen({MESH_PATH: handle}, HOST, identity=identity)
    table.meshes[0].seat_table(table.keys, [None, (HOST, port)])
    run = asyncio.ensure_future(table.meshes[0].run(lambda: False))
    try:
        yield run
    finally:
        run.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await run
        await runner.cleanup()
        await table.close()


def odd_certificate(identity: Ed25519PrivateKey) -> bytes:
    """``identity``'s certificate, issued by the public issuer, with BasicConstraints' critical
    flag encoded 0x01 instead of 0xFF: BER, which OpenSSL takes in a handshake and the
    ``cryptography`` parser refuses."""
    cert = certificate(identity)
    der, tbs = cert.public_bytes(serialization.Encoding.DER), cert.tbs_certificate_bytes
    marker = bytes.fromhex("0603551d130101ff")  # OID 2.5.29.19, critical TRUE
    assert tbs.count(marker) == 1
    odd = tbs.replace(marker, bytes.fromhex("0603551d13010101"))
    return der.replace(tbs, odd).replace(cert.signature, tls._issuer()[0].sign(odd))


def odd_server_context(identity: Ed25519PrivateKey, tmp_path: Path) -> ssl.SSLContext:
    """A listener's context presenting :func:`odd_certificate` for ``identity``."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    chain, key = tmp_path / "chain.pem", tmp_path / "key.pem"
    chain.write_bytes(ssl.DER_cert_to_PEM_cert(odd_certificate(identity)).encode() + tls.issuer_pem())
    key.write_bytes(identity.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    context.load_cert_chain(chain, key)
    return context


def test_a_certificate_that_does_not_parse_is_a_bad_certificate() -> None:
    identity = Ed25519PrivateKey.generate()
    good = certificate(identity).public_bytes(serialization.Encoding.DER)
    assert certificate_key(good) == public_bytes(identity)
    with pytest.raises(BadCertificate, match="a certificate that does not parse"):
        certificate_key(odd_certificate(identity))


async def test_a_listener_whose_certificate_does_not_parse_is_dialled_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack: seat 2's address answers with a certificate OpenSSL takes and ``cryptography``
    does not (for seat 2's very key). The link ends, nobody is blamed, and seat 1 goes on
    dialling: the dialling task is not ended by it (which would cut the seat off for good)."""
    table = await open_mesh_table(players=2)
    handled = 0

    async def handle(request: aiohttp.web.Request) -> aiohttp.web.StreamResponse:
        nonlocal handled
        handled += 1
        socket = aiohttp.web.WebSocketResponse()
        await socket.prepare(request)
        async for _message in socket:
            pass
        return socket

    monkeypatch.setattr("protocol.listener.server_context",
                        lambda identity: odd_server_context(identity, tmp_path))
    async with seat_2_answered_by(table, handle, table.peers[1].identity) as run:
        deadline = asyncio.get_running_loop().time() + 30
        while handled < 3:  # dialled again, and again
            assert not run.done(), run
            assert asyncio.get_running_loop().time() < deadline, f"dialled {handled} time(s), then no more"
            await asyncio.sleep(0.05)
        assert not table.meshes[0].links and not table.peers[0].faults


def test_require_key_names_the_problem() -> None:
    with pytest.raises(BadCertificate, match="no certificate"):
        require_key(None, None, "seat 2")
    assert peer_key(object()) is None


class Injector:
    """A TCP forwarder in front of one listener that, once ``after`` bytes have gone through
    towards the listener, inserts ``garbage`` into the stream, once. Under TLS the listener
    cannot take it for a frame: the record fails its authentication and the connection ends."""

    def __init__(self, upstream: int, after: int, garbage: bytes) -> None:
        self.upstream = upstream
        self.after = after
        self.garbage = garbage
        self.injected = 0
        self.connections = 0
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._link, HOST, 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _link(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.open_connection(HOST, self.upstream)
        except OSError:
            writer.close()
            return
        await asyncio.gather(self._pipe(reader, up_writer, towards=True),
                             self._pipe(up_reader, writer, towards=False), return_exceptions=True)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, towards: bool) -> None:
        sent = 0
        try:
            while data := await reader.read(65536):
                if towards and not self.injected and sent + len(data) > self.after:
                    self.injected += 1
                    cut = max(0, self.after - sent)
                    data = data[:cut] + self.garbage + data[cut:]
                sent += len(data)
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()


@pytest.mark.parametrize("garbage", [b"\x82\x05\x92\x01\x00\x00\x00", b"\x17\x03\x03\x00\x10" + bytes(16)],
                         ids=["a websocket frame", "a forged TLS record"])
async def test_a_frame_injected_into_a_link_ends_it_and_nobody_is_blamed(tmp_path: Path, garbage: bytes
                                                                         ) -> None:
    """Attack: a machine on the path between seat 1 and seat 2 injects a frame (a well-formed
    websocket frame, or a record that looks like TLS) into their link mid-game. Defence: TLS
    refuses the bytes, the connection drops, seat 1 dials again, the peers fetch what they
    missed; no fault is recorded against anybody and the logs are identical and clean."""
    table = await open_mesh_table(players=3)
    injector = Injector(table.ports[1], after=20_000, garbage=garbage)
    proxy_port = await injector.start()
    addresses: list[tuple[str, int] | None] = [(HOST, p) for p in table.ports]
    addresses[1] = (HOST, proxy_port)
    table.meshes[0].seat_table(table.keys, addresses)  # seat 1 dials seat 2 through the injector
    try:
        paths = await table.play(tmp_path)
    finally:
        await injector.close()
        await table.close()
    assert injector.injected == 1 and injector.connections >= 2  # it did inject; seat 1 redialled
    assert all(not peer.faults for peer in table.peers), [peer.faults for peer in table.peers]
    assert all(peer.finished and not peer.stopped for peer in table.peers)
    assert_same_clean_logs(paths)

