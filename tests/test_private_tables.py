"""Private tables (``p2p10 host --private``), on 127.0.0.1: only a machine that proves the code
sits down or watches; a wrong code is refused without taking the seat or disturbing the host;
guesses are slowed down; a machine in the middle that relays the code exchange between two TLS
links gets nothing; and the commands: a wrong code exits 1 with a line that names the code."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.rules import RuleSet
from protocol.lan import GameResult, LanError
from protocol.lan_host import Host
from protocol.lan_join import Joiner
from protocol.listener import listen
from protocol.lobby import LOBBY_PATH
from protocol.lobby_messages import WrongCode, pack, unpack
from protocol.mesh import url_for
from protocol.private import GuessLimiter, new_code
from protocol.tls import client_context
from protocol.watch import watch
from tests.test_lan_processes import environment, p2p10, read_line, read_port, stop

TIMEOUT = 60.0
RULES = RuleSet.parse(["hands=1"])


class Clock:
    """The host's clock for its guess limiter, moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def private_host(tmp_path: Path, code: str) -> tuple[Host, asyncio.Future[GameResult], str, Clock]:
    said: list[str] = []
    host = Host("Ann", 3, RULES, "greedy", "127.0.0.1", save_dir=tmp_path / "ann", say=said.append,
                advertised=False, bots=1, code=code)
    clock = Clock()
    host.gate.clock = clock
    hosting = asyncio.ensure_future(host.run())
    while not said:
        await asyncio.sleep(0.01)
    return host, hosting, said[0].removeprefix("listening on "), clock


def joiner(address: str, tmp_path: Path, name: str, code: str | None) -> Joiner:
    return Joiner(address, name, "greedy", "127.0.0.1", tmp_path / name, say=lambda _: None, code=code)


async def test_only_the_code_seats_a_player_and_a_wrong_one_takes_nothing(tmp_path: Path) -> None:
    code = new_code()
    wrong = "1-" + code.partition("-")[2] if not code.startswith("1-") else "2-" + code.partition("-")[2]
    host, hosting, address, clock = await private_host(tmp_path, code)
    host_port = int(address.rpartition(":")[2])
    with pytest.raises(WrongCode, match="refused the code"):
        await asyncio.wait_for(joiner(address, tmp_path, "Eve", wrong).run(), TIMEOUT)
    assert len(host.roster) == 1 and host.gate.wrong == 1 and not hosting.done()
    # At once again from the same address: slowed down (the guest dials again when told),
    # and no guess is spent on it.
    told: list[str] = []
    again = Joiner(address, "Eve", "greedy", "127.0.0.1", tmp_path / "Eve", say=told.append, code=wrong)
    trying = asyncio.ensure_future(again.run())
    while not any("slowing down attempts at its code" in line for line in told):
        await asyncio.sleep(0.01)
    trying.cancel()
    await asyncio.gather(trying, return_exceptions=True)
    assert host.gate.wrong == 1
    # No code at all: told that the table needs one. A spectator needs it too.
    with pytest.raises(WrongCode, match="private") as needed:
        await asyncio.wait_for(joiner(address, tmp_path, "Eve", None).run(), TIMEOUT)
    assert needed.value.needed
    with pytest.raises(WrongCode, match="private"):
        await asyncio.wait_for(watch(("127.0.0.1", host_port), "Peeker"), TIMEOUT)
    assert len(host.roster) == 1 and host.gate.wrong == 1
    clock.now += 120  # the backoff is over
    watching = asyncio.ensure_future(watch(("127.0.0.1", host_port), "Sam", code=code,
                                           save_dir=tmp_path / "sam"))
    bob = joiner(address, tmp_path, "Bob", code.upper().replace("-", " "))  # as typed: still the code
    played = await asyncio.wait_for(asyncio.gather(hosting, bob.run(), watching), TIMEOUT)
    assert played[0].log_path.read_bytes() == played[1].log_path.read_bytes()
    assert played[2].report.clean and played[2].log_path is not None
    assert played[2].log_path.read_bytes() == played[0].log_path.read_bytes()
    assert [s.name for s in host.roster] == ["Ann", "Bob", "Bot 1"]


async def test_a_code_for_an_open_table_is_refused_clearly(tmp_path: Path) -> None:
    said: list[str] = []
    host = Host("Ann", 2, RULES, "greedy", "127.0.0.1", save_dir=tmp_path / "ann", say=said.append,
                advertised=False)
    hosting = asyncio.ensure_future(host.run())
    try:
        while not said:
            await asyncio.sleep(0.01)
        with pytest.raises(LanError, match="not private: join it without --code"):
            await asyncio.wait_for(joiner(said[0].removeprefix("listening on "), tmp_path, "Bob",
                                          new_code()).run(), TIMEOUT)
    finally:
        hosting.cancel()
        await asyncio.gather(hosting, return_exceptions=True)


async def test_a_relay_in_the_middle_learns_nothing_and_seats_nobody(tmp_path: Path) -> None:
    """Attack: a machine in the middle answers the guest under its own TLS key and dials the host
    under its own, and relays every frame of the code exchange unchanged. Defence: each side's
    confirmation covers the two keys it saw in TLS, which differ on each side of the relay; the
    host refuses the code (one guess spent), the guest is not seated and learns it."""
    code = new_code()
    host, hosting, address, _clock = await private_host(tmp_path, code)
    host_port = int(address.rpartition(":")[2])
    relayed: list[bytes] = []

    async def relay(request: web.Request) -> web.WebSocketResponse:
        guest = web.WebSocketResponse()
        await guest.prepare(request)
        async with aiohttp.ClientSession() as session, session.ws_connect(
                url_for("127.0.0.1", host_port, LOBBY_PATH),
                ssl=client_context(Ed25519PrivateKey.generate())) as upstream:

            async def pump(source: aiohttp.ClientWebSocketResponse | web.WebSocketResponse,
                           sink: aiohttp.ClientWebSocketResponse | web.WebSocketResponse) -> None:
                async for message in source:
                    if message.type == aiohttp.WSMsgType.BINARY:
                        relayed.append(message.data)
                        await sink.send_bytes(message.data)
                await sink.close()

            await asyncio.gather(pump(guest, upstream), pump(upstream, guest), return_exceptions=True)
        return guest

    runner, relay_port = await listen({LOBBY_PATH: relay}, "127.0.0.1", identity=Ed25519PrivateKey.generate())
    try:
        with pytest.raises(WrongCode, match="refused the code"):
            await asyncio.wait_for(joiner(f"127.0.0.1:{relay_port}", tmp_path, "Bob", code).run(), TIMEOUT)
        assert len(relayed) >= 3  # the exchange did go through the relay
        assert host.gate.wrong == 1 and len(host.roster) == 1
    finally:
        await runner.cleanup()
        hosting.cancel()
        await asyncio.gather(hosting, return_exceptions=True)


def test_the_commands_a_wrong_code_exits_1_and_the_right_one_plays(tmp_path: Path) -> None:
    env = environment(tmp_path)
    host = subprocess.Popen(p2p10("host", "--name", "Ann", "--seats", "2", "--private",
                                  "--autoplay", "greedy",
                                  "--start-when-full", "--interface", "127.0.0.1", "--quiet-network",
                                  "-o", "hands=1", "--save", str(tmp_path / "ann")),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    procs = [host]
    try:
        port = read_port(host)
        code = read_line(host, r"private table: its code is (\d+-[a-z]+-[a-z]+)").group(1)
        number, first, second = code.split("-")
        wrong = f"{int(number) % 99 + 1}-{first}-{second}"
        refused = subprocess.run(p2p10("join", f"127.0.0.1:{port}", "--code", wrong, "--autoplay", "greedy",
                                       "--interface", "127.0.0.1", "--save", str(tmp_path / "eve")),
                                 capture_output=True, text=True, env=env, timeout=TIMEOUT)
        assert refused.returncode == 1, refused
        assert refused.stderr.strip() == "p2p10: the host refused the code: it is not this table's code"
        assert "Traceback" not in refused.stderr and host.poll() is None
        no_code = subprocess.run(p2p10("join", f"127.0.0.1:{port}", "--autoplay", "greedy",
                                       "--interface", "127.0.0.1", "--save", str(tmp_path / "eve")),
                                 capture_output=True, text=True, env=env, timeout=TIMEOUT,
                                 stdin=subprocess.DEVNULL)
        assert no_code.returncode == 1 and "--code CODE" in no_code.stderr, no_code
        # The wrong guess made this address wait a second: the player types the right code after.
        subprocess.run(["sleep", "1.5"], check=True)
        bob = subprocess.Popen(p2p10("join", f"127.0.0.1:{port}", "--code", code, "--autoplay", "greedy",
                                     "--interface", "127.0.0.1", "--save", str(tmp_path / "bob")),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        procs.append(bob)
        outputs = [proc.communicate(timeout=TIMEOUT) for proc in procs]
        for proc, (out, err) in zip(procs, outputs, strict=True):
            assert proc.returncode == 0, (out, err)
            assert "game over:" in out
    finally:
        stop(procs)


async def test_a_guest_without_a_certificate_is_refused_and_spends_no_guess(tmp_path: Path) -> None:
    """Before any code is tested, the guest's certificate is read (the exchange is bound to
    its key): a guest that presents none, or one that cannot be read, is refused at once and
    takes nothing from the guess limit."""
    host, hosting, address, clock = await private_host(tmp_path, new_code())
    host.gate.limiter = GuessLimiter(global_limit=1)  # one attempt spent would show
    try:
        async with aiohttp.ClientSession() as session:
            host_name, _colon, port = address.rpartition(":")
            socket = await session.ws_connect(url_for(host_name, int(port), LOBBY_PATH),
                                              ssl=client_context(None))
            await socket.send_bytes(pack(["pake", bytes(33)]))
            answer = unpack((await asyncio.wait_for(socket.receive(), TIMEOUT)).data)
            await socket.close()
        assert answer[0] == "refused" and "no certificate" in answer[1], answer
        assert host.gate.limiter.wait("10.1.1.1", clock()) == 0 and len(host.gate.limiter) == 0
        assert len(host.roster) == 1 and host.gate.wrong == 0
    finally:
        hosting.cancel()
        await asyncio.gather(hosting, return_exceptions=True)


async def hang_up_after_a_message(address: str, source: str) -> list[object]:
    """A stranger's throwaway attempt from ``source``: one valid SPAKE2 message, then it
    hangs up; what the host answered, if anything."""
    from protocol.private import CodeProof, binding_of

    host_name, _colon, port = address.rpartition(":")
    identity = Ed25519PrivateKey.generate()
    key = identity.public_key().public_bytes_raw()
    message = CodeProof(new_code(), "guest", binding_of(bytes(32), key)).message()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(source, 0))) as session:
        socket = await session.ws_connect(url_for(host_name, int(port), LOBBY_PATH),
                                          ssl=client_context(identity))
        await socket.send_bytes(pack(["pake", message]))
        answer = unpack((await asyncio.wait_for(socket.receive(), TIMEOUT)).data)
        await socket.close()
    return list(answer)


async def test_a_stranger_who_hangs_up_cannot_keep_the_guests_out(tmp_path: Path) -> None:
    """Attack A54: a stranger opens connection after connection from one address, each sending
    one SPAKE2 message and hanging up, to keep the table's shared guess window full. Defence:
    an address has at most its share of the window, each abandoned attempt counts as a failure
    (its backoff grows), and the host is told how many failed and from where; the guest with
    the right code, from another address, sits down at once; the host can take a new code."""
    code = new_code()
    said: list[str] = []
    host = Host("Ann", 2, RULES, "greedy", "127.0.0.1", save_dir=tmp_path / "ann", say=said.append,
                advertised=False, code=code)
    clock = Clock()
    host.gate.clock = clock
    hosting = asyncio.ensure_future(host.run())
    try:
        while not said:
            await asyncio.sleep(0.01)
        address = said[0].removeprefix("listening on ")
        answers = []
        for _step in range(20):  # as fast as the host lets it: a try every half second
            answers.append(await hang_up_after_a_message(address, "127.0.0.2"))
            clock.now += 0.5
        taken = sum(1 for answer in answers if answer[0] == "pake")
        assert taken <= 2, answers
        assert host.gate.wrong == taken
        told = [line for line in said if "at the code ha" in line]
        assert told and "127.0.0.2" in told[-1], said
        # The host takes a new code from its screen: the old one opens nothing now.
        fresh = host.new_code()
        assert any(fresh in line for line in said)
        with pytest.raises(WrongCode, match="refused the code"):
            await asyncio.wait_for(joiner(address, tmp_path, "Bob", code).run(), TIMEOUT)
        clock.now += 61  # Bob's wrong code was the window's third attempt this minute
        bob = joiner(address, tmp_path, "Bob", fresh)
        played = await asyncio.wait_for(asyncio.gather(hosting, bob.run()), TIMEOUT)
        assert played[0].log_path.read_bytes() == played[1].log_path.read_bytes()
    finally:
        hosting.cancel()
        await asyncio.gather(hosting, return_exceptions=True)
