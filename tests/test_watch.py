"""Spectators (``p2p10 watch``, :mod:`protocol.watch`), on 127.0.0.1 in this process: a spectator
from before the start and one from mid-game both end with the players' log, byte for byte,
audited clean; the players are told who watches; the host's cap; a spectator that does not read
is dropped while the game goes on; and the spectator's live audit, which takes nobody's word:
it finds a violation in what the host sends, with the seat to blame, and checks the host's
evidence before it believes it."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import protocol.watch
from p2p10.audit import LiveAudit, audit_records, one_history
from p2p10.bots import POLICIES
from p2p10.chatroom import sign_chat
from p2p10.log import fingerprint, make_entry, parse_entry, public_bytes, read_records
from p2p10.rules import RuleSet
from p2p10.wire import CHAT_NONCE_BYTES
from protocol.gallery import Gallery, read_gallery, save_gallery
from protocol.lan import GameResult, LanError
from protocol.lan_host import Host
from protocol.lan_join import Joiner
from protocol.listener import listen
from protocol.lobby import Gate
from protocol.lobby_messages import pack, shown, unpack
from protocol.memory import TableRun, play_table
from protocol.mesh import url_for
from protocol.private import GuessLimiter
from protocol.tls import client_context
from protocol.watch import WATCH_PATH, WatchEvents, WatchResult, watch
from tests.test_discovery import eventually

TIMEOUT = 60.0
RULES = RuleSet.parse(["hands=1"])


Hosting = tuple[Host, asyncio.Future[GameResult], int, list[str]]


async def open_host(tmp_path: Path, **options: object) -> Hosting:
    """A host (Ann, a bot, and one seat for a joiner) on 127.0.0.1; its port and what it said."""
    said: list[str] = []
    host = Host("Ann", 3, RULES, "greedy", "127.0.0.1", save_dir=tmp_path / "ann", say=said.append,
                advertised=False, bots=1, **options)  # type: ignore[arg-type]
    hosting = asyncio.ensure_future(host.run())
    while not said:
        await asyncio.sleep(0.01)
    return host, hosting, int(said[0].rpartition(":")[2]), said


async def admitted(port: int, said: list[str], name: str, **options: Any) -> asyncio.Future[WatchResult]:
    """``name`` watching the host at ``port`` (``options`` as :func:`watch`'s), once the host
    has said it is admitted."""
    task = asyncio.ensure_future(watch(("127.0.0.1", port), name, **options))
    while not any(f"{name} is watching" in line for line in said):
        await asyncio.sleep(0.01)
    return task


async def test_spectators_before_and_mid_game_end_with_the_players_clean_log(tmp_path: Path) -> None:
    _host, hosting, port, said = await open_host(tmp_path)
    early_chat: list[tuple[int, str]] = []
    early = await admitted(port, said, "Early", save_dir=tmp_path / "early",
                           events=WatchEvents(chat=lambda *line: early_chat.append(line)))
    joiner = Joiner(f"127.0.0.1:{port}", "Bob", "greedy", "127.0.0.1", tmp_path / "bob", say=lambda _: None)
    joining = asyncio.ensure_future(joiner.run())
    while joiner.peer is None or len(joiner.peer.log) < 40:  # well into the first hand
        await asyncio.sleep(0.01)
    late_seen: list[int] = []
    late = asyncio.ensure_future(watch(("127.0.0.1", port), "Late", save_dir=tmp_path / "late",
                                       events=WatchEvents(entry=lambda a: late_seen.append(len(a.records)))))
    results = await asyncio.wait_for(asyncio.gather(hosting, joining, early, late), TIMEOUT)
    played: list[GameResult] = list(results[:2])
    watched: list[WatchResult] = list(results[2:])
    log = played[0].log_path.read_bytes()
    assert played[1].log_path.read_bytes() == log
    assert not any((tmp_path / "ann").glob("*.p2p10-watch"))  # kept for a resume until the end
    assert late_seen[0] == 1 and late_seen[-1] == len(played[0].peer.log)  # caught up from entry 0
    for result in watched:
        assert result.ended and result.report.clean, result.summary()
        assert result.log_path is not None and result.log_path.read_bytes() == log
        assert result.summary().startswith("CLEAN")
    # The players were told who watches, Early from the start: a chat line from the host's
    # seat, at every seat; and the spectators with them, its signature checked.
    heard = [line.text for line in played[1].peer.chat]
    assert "/watching 1: Early" in heard, heard  # a notice (each screen shows it as one)
    assert (0, "/watching 1: Early") in early_chat, early_chat


async def test_a_spectator_whose_link_breaks_dials_again_and_goes_on(tmp_path: Path) -> None:
    """A spectator's link cut mid-game (Wi-Fi, a machine asleep for a moment): it dials again,
    says how many entries it holds, and goes on from there to the players' whole log."""
    host, hosting, port, said = await open_host(tmp_path)
    notes: list[str] = []
    watching = await admitted(port, said, "Sam", save_dir=tmp_path / "sam",
                              events=WatchEvents(note=notes.append))
    joiner = Joiner(f"127.0.0.1:{port}", "Bob", "greedy", "127.0.0.1", tmp_path / "bob", say=lambda _: None)
    joining = asyncio.ensure_future(joiner.run())
    while joiner.peer is None or len(joiner.peer.log) < 30:
        await asyncio.sleep(0.01)
    cut = host.gallery.spectators[0]
    assert cut.transport is not None
    cut.transport.abort()
    played, _bob, result = await asyncio.wait_for(asyncio.gather(hosting, joining, watching), TIMEOUT)
    assert any("dialling again" in note for note in notes), notes
    assert result.ended and result.report.clean, (result.summary(), notes)
    assert result.log_path is not None and result.log_path.read_bytes() == played.log_path.read_bytes()


async def test_a_spectator_stops_when_the_host_does_not_come_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's machine goes down mid-game and stays down: the spectator dials again (the
    host may be resumed) for RECONNECT_FOR seconds, then stops, with what it has checked."""
    monkeypatch.setattr(protocol.watch, "RECONNECT_FOR", 1.0)
    host, hosting, port, said = await open_host(tmp_path)
    notes: list[str] = []
    watching = await admitted(port, said, "Sam", events=WatchEvents(note=notes.append))
    joiner = Joiner(f"127.0.0.1:{port}", "Bob", "greedy", "127.0.0.1", tmp_path / "bob", say=lambda _: None)
    joining = asyncio.ensure_future(joiner.run())
    while joiner.peer is None or len(joiner.peer.log) < 30:
        await asyncio.sleep(0.01)
    for task in (hosting, joining):  # the whole table goes away
        task.cancel()
    await asyncio.gather(hosting, joining, return_exceptions=True)
    result = await asyncio.wait_for(watching, TIMEOUT)
    assert notes[-2:] == ["the link to the host broke; dialling again",
                          "the host has not answered for 1 s: stopped watching"], notes
    report = result.report
    assert not result.ended and not report.complete and report.violation is report.damage is None
    assert result.summary().startswith("the host's link closed before the game ended: INCOMPLETE")
    assert 0 < report.entries <= len(host.peers[0].log)  # what came was checked, and stands


async def test_a_spectator_of_a_table_gone_before_its_start_stops_soon(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table that never started cannot be resumed: its spectator gives up after the short
    window, not the long one (ten minutes here, longer than this test waits)."""
    monkeypatch.setattr(protocol.watch, "RECONNECT_BEFORE_START", 1.0)
    monkeypatch.setattr(protocol.watch, "RECONNECT_FOR", 600.0)
    _host, hosting, port, said = await open_host(tmp_path)
    notes: list[str] = []
    watching = await admitted(port, said, "Sam", events=WatchEvents(note=notes.append))
    hosting.cancel()  # the host leaves its lobby
    await asyncio.gather(hosting, return_exceptions=True)
    result = await asyncio.wait_for(watching, TIMEOUT)
    assert notes[-1] == "the host has not answered for 1 s: stopped watching", notes
    assert not result.ended and result.report.entries == 0


async def test_watching_what_serves_no_spectators_says_so_at_once(tmp_path: Path) -> None:
    async def other(request: web.Request) -> web.StreamResponse:
        return web.Response(text="a p2p10 peer that is not a host")

    runner, port = await listen({"/mesh": other}, "127.0.0.1", identity=Ed25519PrivateKey.generate())
    try:
        with pytest.raises(LanError, match=r"^127\.0\.0\.1:\d+ serves no spectators \(HTTP 404\)$"):
            await asyncio.wait_for(watch(("127.0.0.1", port), "Sam"), TIMEOUT)
    finally:
        await runner.cleanup()


def test_the_spectator_settings_file_keeps_the_cap_and_code_and_refuses_damage(tmp_path: Path) -> None:
    path = tmp_path / "t.p2p10-watch"
    assert read_gallery(path) is None  # not a host's
    save_gallery(path, 3, "7-orbit-tulip")
    assert read_gallery(path) == (3, "7-orbit-tulip", None) and path.stat().st_mode & 0o777 == 0o600
    save_gallery(path, 0, None)
    assert read_gallery(path) == (0, None, None)
    save_gallery(path, 2, None, "Kitchen")  # the name the table was announced under
    assert read_gallery(path) == (2, None, "Kitchen")
    for damaged in (b"", b"\xc1", pack(["p2p10/watch/v1", -1, None]), pack(["p2p10/watch/v1", 2, 7]),
                    pack(["p2p10/watch/v2", 2, None]), pack(["p2p10/watch/v1", True, None]),
                    pack(["p2p10/watch/v1", 2, "not a code"]), pack(["p2p10/watch/v1", 2, "07 Orbit tulip"])):
        path.write_bytes(damaged)
        with pytest.raises(LanError, match=r"t\.p2p10-watch: spectator settings are \[label, cap, code\]"):
            read_gallery(path)


async def test_the_host_caps_its_spectators(tmp_path: Path) -> None:
    host, hosting, port, said = await open_host(tmp_path, spectators=1)
    try:
        first = await admitted(port, said, "One")
        with pytest.raises(LanError, match="1 spectators already"):
            await asyncio.wait_for(watch(("127.0.0.1", port), "Two"), TIMEOUT)
        assert host.gallery.names == ["One"]
    finally:
        for task in (hosting, first):  # (the spectator would dial the host that went again)
            task.cancel()
        await asyncio.gather(hosting, first, return_exceptions=True)


async def test_a_spectator_that_does_not_read_is_dropped_and_the_game_goes_on(tmp_path: Path) -> None:
    """Attack: a spectator that never reads, so that the host's messages to it pile up. The
    host never waits for it: its queue has a bound, past which it is cut off. (The kernel's
    buffers would hide a stuck reader for a whole short game: here the host's writer to it is
    stuck, as it is once those buffers are full.)"""
    host, hosting, port, _said = await open_host(tmp_path)
    host.gallery.queue_limit = 20
    host.gallery.end_wait = 0.5  # the stuck spectator never dials again: no use waiting for it
    stalled = asyncio.Event()

    async def stuck_writer(spectator: object) -> None:
        await stalled.wait()  # never set: the link to this spectator takes nothing

    host.gallery._write = stuck_writer  # type: ignore[method-assign]
    async with aiohttp.ClientSession() as session:
        stuck = await session.ws_connect(url_for("127.0.0.1", port, WATCH_PATH),
                                         ssl=client_context(Ed25519PrivateKey.generate()))
        await stuck.send_bytes(pack(["watch", "Stuck"]))
        while not host.gallery.spectators:
            await asyncio.sleep(0.01)
        joiner = Joiner(f"127.0.0.1:{port}", "Bob", "greedy", "127.0.0.1", tmp_path / "bob",
                        say=lambda _: None)
        played = await asyncio.wait_for(asyncio.gather(hosting, joiner.run()), TIMEOUT)
        assert host.gallery.dropped == 1 and not host.gallery.spectators
        assert all(result.peer.finished and not result.peer.stopped for result in played)
        await stuck.close()


# ----------------------------------------------------------------- the live audit


@functools.cache
def the_game() -> TableRun:
    """A whole three-seat game, played in memory with its peers' keys at hand (once)."""
    return play_table([POLICIES["greedy"]] * 3, RULES, seed=11)


@pytest.fixture(scope="module")
def game() -> TableRun:
    """:func:`the_game`."""
    return the_game()


def records_of(run: TableRun) -> list[bytes]:
    return [entry.raw for entry in run.peers[0].log]


def move_at(records: list[bytes], start: int = 1) -> int:
    """The position of the first move entry from ``start`` on."""
    return next(i for i in range(start, len(records)) if parse_entry(records[i]).kind == "move")


def rewritten(run: TableRun, k: int, body: object, key_of: int | None = None) -> bytes:
    """Entry ``k`` with another body, signed by its author (or by seat ``key_of``'s key)."""
    entry = parse_entry(records_of(run)[k])
    table = run.peers[0].table
    assert table is not None
    signer = run.peers[entry.author if key_of is None else key_of].identity
    return make_entry(signer, table.game_id, k, entry.prev_hash, entry.author, entry.kind, body).raw


def bad_logs(run: TableRun) -> dict[str, list[bytes]]:
    """Logs a host could feed its spectators: each breaks at one entry."""
    records = records_of(run)
    k = move_at(records, 40)
    author = parse_entry(records[k]).author
    return {
        "clean": records,
        "an illegal move, signed by its author": [*records[:k], rewritten(run, k, [0, "nonsense"]),
                                                  *records[k + 1:]],
        "an entry signed by another seat's key": [
            *records[:k], rewritten(run, k, parse_entry(records[k]).body, key_of=(author + 1) % 3),
            *records[k + 1:]],
        "a dropped entry": [*records[:k], *records[k + 1:]],
        "bytes that are no entry": [*records[:k], b"\x92\xc4\x01x"],
    }


def test_the_live_audit_gives_the_audits_verdict_after_every_entry(game: TableRun) -> None:
    """Fed one entry at a time, the live audit's verdict after each is the offline audit's of
    that prefix: on a clean log and on logs that break in each way a host could send."""
    for name, records in bad_logs(game).items():
        live = LiveAudit()
        for count, raw in enumerate(records, 1):
            live.add(raw)
            offline = audit_records(records[:count])
            assert live.report().verdict() == offline.verdict(), (name, count)
            if live.stopped:
                break
        assert live.stopped == (name != "clean"), name


def test_the_live_audit_checks_the_hosts_evidence(game: TableRun) -> None:
    records = records_of(game)
    k = move_at(records, 40)
    author = parse_entry(records[k]).author

    def at(position: int) -> LiveAudit:
        live = LiveAudit()
        for raw in records[:position]:
            assert live.add(raw) is None
        return live

    # The host's word alone proves nothing: an entry the log already holds, garbage, one twin.
    live = at(k)
    assert live.evidence([records[3]]) is None and live.evidence([b"not an entry"]) is None
    assert live.evidence([records[3], records[3]]) is None and not live.stopped
    # The entry that broke the rules, as the next entry: checked here, its author blamed.
    found = at(k).evidence([rewritten(game, k, [0, "nonsense"])])
    assert found is not None and found.seat == author and found.seq == k
    # Two different entries one author signed for one position: an equivocation, proven.
    twin = rewritten(game, k, [0, "another"])
    found = at(len(records)).evidence([records[k], twin])
    assert found is not None and found.seat == author and "two different entries" in str(found)
    # A twin signed by another key proves nothing against the author.
    forged = rewritten(game, k, [0, "another"], key_of=(author + 1) % 3)
    assert at(len(records)).evidence([records[k], forged]) is None


def test_the_live_audit_takes_no_evidence_from_another_game_or_beyond_its_log(game: TableRun) -> None:
    """Attack A55: a host whose player used one key at two tables shows a spectator two
    different entries that player signed for one seat and one position: at the other table, or
    for a position this log does not have. They prove nothing here, and the verdict stays."""
    records = records_of(game)
    k = move_at(records, 40)
    entry = parse_entry(records[k])
    signer = game.peers[entry.author].identity
    live = LiveAudit()
    for raw in records:
        assert live.add(raw) is None
    elsewhere = bytes(16)  # another table's game id, the same player's key
    twins = [make_entry(signer, elsewhere, k, entry.prev_hash, entry.author, "move", [0, body]).raw
             for body in ("draw", "other")]
    assert live.evidence(twins) is None and not live.stopped
    table = game.peers[0].table
    assert table is not None
    beyond = len(records) + 3
    twins = [make_entry(signer, table.game_id, beyond, entry.prev_hash, entry.author, "move", [0, body]).raw
             for body in ("draw", "other")]
    assert live.evidence(twins) is None and not live.stopped
    assert live.report().verdict().startswith("CLEAN")


async def test_a_spectator_shows_a_violation_in_what_the_host_sends_with_blame(tmp_path: Path) -> None:
    """Attack: a host that feeds its spectators a log with a tampered entry. The spectator
    checks every entry as a peer does: it names the violation and the seat, at once, and its
    verdict is not CLEAN."""
    run = play_table([POLICIES["greedy"]] * 3, RULES, seed=12)
    records = bad_logs(run)["an illegal move, signed by its author"]
    expected = audit_records(records).violation
    assert expected is not None

    failures: list[object] = []
    result = await fed_by([*(["entry", raw] for raw in records), ["end"]],
                          WatchEvents(failure=failures.append), run.peers[0].identity, save_dir=tmp_path)
    assert [str(f) for f in failures] == [str(expected)]
    assert result.report.violation is not None and result.report.violation.seat == expected.seat
    assert result.summary().startswith("VIOLATION")
    # The log saved stops before the entry that broke the rules.
    assert result.log_path is not None
    assert list(read_records(result.log_path.read_bytes()).items) == list(records[:expected.seq])


async def fed_by(messages: list[list[object]], events: WatchEvents,
                 identity: Ed25519PrivateKey | None = None, save_dir: Path | None = None) -> WatchResult:
    """Watch a fake host that admits the spectator, sends ``messages`` and closes; its link
    proves ``identity`` (by default the key of seat 1 of the :func:`game` fixture's table)."""
    async def fake_host(request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        await socket.receive()  # the watch
        await socket.send_bytes(pack(["watching", 1, 8]))
        for message in messages:
            await socket.send_bytes(pack(message))
        await socket.close()
        return socket

    identity = identity or the_game().peers[0].identity
    runner, port = await listen({WATCH_PATH: fake_host}, "127.0.0.1", identity=identity)
    try:
        return await asyncio.wait_for(watch(("127.0.0.1", port), "Eve", save_dir=save_dir, events=events),
                                      TIMEOUT)
    finally:
        await runner.cleanup()


async def test_a_spectator_shows_only_chat_its_seat_signed(game: TableRun) -> None:
    """Attack: a host that puts words in a player's mouth for its spectators. The chat it
    passes on is each seat's signed message, checked against the table's keys: a line signed
    by another key, of another game, or unsigned is not shown, and the spectator is told."""
    table = game.peers[0].table
    assert table is not None
    bob = game.peers[1]
    genuine, _line = sign_chat(bob.identity, table, 1, bytes(CHAT_NONCE_BYTES), "good game")
    ann = game.peers[0].identity  # the host's key, not Bob's
    forged, _line = sign_chat(ann, table, 1, bytes(CHAT_NONCE_BYTES), "I cheated")
    chats: list[tuple[int, str]] = []
    notes: list[str] = []
    records = records_of(game)
    tampered = genuine[:-1] + bytes([genuine[-1] ^ 1])  # a bit of its signature flipped
    await fed_by([["entry", records[0]], ["chat", genuine], ["chat", forged], ["chat", tampered],
                  ["entry", records[1]], ["end"]],
                 WatchEvents(chat=lambda seat, text: chats.append((seat, text)), note=notes.append))
    assert chats == [(1, "good game")], notes
    dropped = "the host passed on a chat line its seat did not sign: not shown"
    assert notes.count(dropped) == 2, notes


async def test_a_malformed_message_from_the_host_stops_the_spectator_saying_so(game: TableRun) -> None:
    records = records_of(game)
    for bad in (["cut", -1], ["cut", True], ["entry", "text"], ["stopped", 5, []], ["chat"],
                ["chat", 1, "words nobody signed"]):
        notes: list[str] = []
        result = await fed_by([["entry", records[0]], bad, ["entry", records[1]], ["end"]],
                              WatchEvents(note=notes.append))
        assert notes[-1].startswith("the host sent a bad message: "), (bad, notes)
        assert not result.ended and result.report.entries == 1, bad
    # A message of a later version is passed over.
    result = await fed_by([["entry", records[0]], ["news", 1], ["end"]], WatchEvents())
    assert result.ended


async def test_a_host_that_goes_quiet_is_dialled_again_not_blamed(
        game: TableRun, monkeypatch: pytest.MonkeyPatch) -> None:
    """A host whose machine stops answering for a while (asleep, or its network gone): the
    spectator's ping goes unanswered, which is a broken link, not the host's bad message; it
    dials again and goes on to the whole game."""
    monkeypatch.setattr(protocol.watch, "HEARTBEAT", 0.4)
    records = records_of(game)
    links = 0

    async def quiet_host(request: web.Request) -> web.WebSocketResponse:
        nonlocal links
        links += 1
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        watching = unpack((await socket.receive()).data)
        held = watching[2] if len(watching) == 4 else 0  # how many entries it holds
        await socket.send_bytes(pack(["watching", 1, 8]))
        for raw in records[held:10 if links == 1 else None]:
            await socket.send_bytes(pack(["entry", raw]))
        if links == 1:
            await asyncio.sleep(5)  # not reading: the spectator's pings go unanswered
            return socket
        await socket.send_bytes(pack(["end"]))
        await socket.close()
        return socket

    runner, port = await listen({WATCH_PATH: quiet_host}, "127.0.0.1", identity=game.peers[0].identity)
    notes: list[str] = []
    try:
        result = await asyncio.wait_for(
            watch(("127.0.0.1", port), "Sam", events=WatchEvents(note=notes.append)), TIMEOUT)
    finally:
        await runner.cleanup()
    assert links == 2 and "the link to the host broke; dialling again" in notes, notes
    assert result.ended and result.report.clean, (result.summary(), notes)


async def test_a_spectator_that_proved_the_code_comes_back_though_guesses_are_spent(
        tmp_path: Path) -> None:
    """Attack: somebody spends the private table's guesses (wrong codes from many addresses)
    while a spectator watches. Its link breaks; dialling again with the key that proved the
    code, it is let in at once, whatever the limit says."""
    host, hosting, port, said = await open_host(tmp_path, code="7-orbit-tulip")
    host.gate.limiter = GuessLimiter(global_window=3600.0, idle=3600.0)  # spent guesses stay spent
    watching = await admitted(port, said, "Sam", code="7-orbit-tulip")
    for attacker in range(3):
        assert host.gate.limiter.begin(f"10.9.9.{attacker}", host.gate.clock()) == 0
    assert host.gate.limiter.wait("127.0.0.1", host.gate.clock()) > 0  # nobody new gets in
    told: list[str] = []
    joiner = Joiner(f"127.0.0.1:{port}", "Bob", "greedy", "127.0.0.1", tmp_path / "bob", say=told.append,
                    code="7-orbit-tulip")
    spectator = host.gallery.spectators[0]
    assert spectator.transport is not None
    spectator.transport.abort()
    try:
        # A newcomer with the right code is held back by the spent limit (the price of it: it
        # is told to dial again later, and would)...
        joining = asyncio.ensure_future(joiner.run())
        await eventually(lambda: any("slowing down attempts at its code" in line for line in told), TIMEOUT)
        joining.cancel()
        await asyncio.gather(joining, return_exceptions=True)
        # ... but the spectator who proved the code is back: Ann and her bot play, it watches.
        host.start()
        _played, result = await asyncio.wait_for(asyncio.gather(hosting, watching), TIMEOUT)
    finally:
        hosting.cancel()
        await asyncio.gather(hosting, return_exceptions=True)
    assert result.ended and result.report.clean, result.summary()


async def test_a_spectator_leaves_a_machine_that_is_not_the_tables_host(game: TableRun) -> None:
    """Attack: a machine that is not the host re-serves a genuine table (every entry signed by
    its seat). The spectator checks the table's host key against its link's: not the table it
    dialled, and it says so."""
    notes: list[str] = []
    result = await fed_by([["entry", raw] for raw in records_of(game)] + [["end"]],
                          WatchEvents(note=notes.append), identity=Ed25519PrivateKey.generate())
    assert "is not this table's host" in notes[-1], notes
    assert not result.ended and result.report.entries == 0 and not result.report.clean


async def a_gallery_of(peer: object, queue_limit: int = 4096) -> tuple[Gallery, web.AppRunner, int]:
    """A host's gallery serving ``peer``'s log on 127.0.0.1 (the peer's own key on the link)."""
    gallery = Gallery(8, lambda _line: None, Gate(None, public_bytes(the_game().peers[0].identity)),
                      queue_limit=queue_limit)
    gallery.attach(peer)  # type: ignore[arg-type]
    identity = the_game().peers[0].identity
    runner, port = await listen({WATCH_PATH: gallery.handle}, "127.0.0.1", identity=identity)
    return gallery, runner, port


async def test_a_spectator_catches_up_on_a_log_longer_than_its_queue(game: TableRun) -> None:
    """A long game (a 6-seat game of standard rules runs past 4 000 entries) seen from its
    middle: the catch-up is the whole log at once, beyond the limit on what may wait for a
    spectator, which is for the live entries; the spectator is not dropped for it."""
    gallery, runner, port = await a_gallery_of(game.peers[0], queue_limit=8)
    counts: list[int] = []
    try:
        events = WatchEvents(entry=lambda audit: counts.append(len(audit.records)))
        watching = asyncio.ensure_future(watch(("127.0.0.1", port), "Sam", events=events))
        while not counts or counts[-1] < len(game.log):
            assert not watching.done(), watching.result().summary()
            await asyncio.sleep(0.01)
        await gallery.finish()  # the game is over: the end goes out
        result = await asyncio.wait_for(watching, TIMEOUT)
    finally:
        await runner.cleanup()
    assert len(game.log) > 8 and gallery.dropped == 0
    assert result.ended and result.report.clean, result.summary()


async def test_a_spectator_dialling_again_on_another_branch_starts_over(game: TableRun) -> None:
    """A spectator dialling again says how many entries it holds and the hash of the last: on
    the host's log it goes on from there; if the host's log is not that any more (cut back and
    grown again on another branch while it was away), it is told to start over, from 0."""
    log = game.log
    _gallery, runner, port = await a_gallery_of(game.peers[0])

    async def dial(first: list[object]) -> list[list[object]]:
        async with aiohttp.ClientSession() as session:
            socket = await session.ws_connect(url_for("127.0.0.1", port, WATCH_PATH),
                                              ssl=client_context(Ed25519PrivateKey.generate()))
            await socket.send_bytes(pack(first))
            got = []
            while len(got) < 3:
                message = await asyncio.wait_for(socket.receive(), TIMEOUT)
                if message.type != aiohttp.WSMsgType.BINARY:
                    break  # (closed after a refusal)
                got.append(unpack(message.data))
            await socket.close()
            return got

    try:
        same = await dial(["watch", "Sam", 5, log[4].hash])
        other = await dial(["watch", "Sam", 5, bytes(32)])
        beyond = await dial(["watch", "Sam", len(log) + 3, log[-1].hash])
        bad = await dial(["watch", "Sam", 5])
    finally:
        await runner.cleanup()
    assert same[0][0] == "watching" and same[1:] == [["entry", log[5].raw], ["entry", log[6].raw]]
    assert other[1:] == [["cut", 0], ["entry", log[0].raw]]
    assert beyond[1:] == [["cut", 0], ["entry", log[0].raw]]
    assert bad[0][0] == "refused" and "['watch', name, from, hash]" in bad[0][1]


class TalkingPeer:
    """Stands in for the host's peer mid-game: it has a table and keeps what it says."""

    class Hooks:
        def listen(self, **_hooks: object) -> None:
            pass

    def __init__(self) -> None:
        self.table, self.log, self.hooks = object(), [], self.Hooks()
        self.finished = self.stopped = False
        self.said: list[str] = []

    def say(self, text: str) -> None:
        self.said.append(text)


async def test_spectators_coming_and_going_fast_do_not_flood_the_players_chat(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack: a machine that connects and leaves as a spectator over and over, so that the
    host's seat says who watches ("/watching ...") to every player each time. The players hear at most
    one such line every TELL_EVERY seconds, saying who watches by then."""
    monkeypatch.setattr(protocol.gallery, "TELL_EVERY", 1.0)
    peer = TalkingPeer()
    gallery, runner, port = await a_gallery_of(peer)
    gallery.cap = 100
    loop = asyncio.get_running_loop()
    began = loop.time()
    try:
        async with aiohttp.ClientSession() as session:
            for number in range(20):
                socket = await session.ws_connect(url_for("127.0.0.1", port, WATCH_PATH),
                                                  ssl=client_context(Ed25519PrivateKey.generate()))
                await socket.send_bytes(pack(["watch", f"S{number}"]))
                assert unpack((await asyncio.wait_for(socket.receive(), TIMEOUT)).data)[0] == "watching"
                await socket.close()
            while gallery.spectators:
                await asyncio.sleep(0.01)
        await asyncio.sleep(1.5)  # past the next line's time
        took = loop.time() - began
    finally:
        await runner.cleanup()
    # 40 comings and goings: one line at once, then at most one a second (however long the
    # machine took over them), the last saying nobody is left.
    assert 2 <= len(peer.said) <= 1 + took / 1.0 + 1, (peer.said, took)
    assert len(peer.said) < 40 and peer.said[-1] == "/watching 0"


def test_words_from_another_machine_are_made_safe_to_show() -> None:
    assert shown("fine words") == "fine words"
    assert shown("\x1b]0;owned\x07\x1b[2Jgone\nCLEAN") == "?]0;owned??[2Jgone?CLEAN"
    long = shown("x" * 500)
    assert len(long) == 200 and long.endswith("…")


async def test_a_hosts_refusal_is_shown_without_its_escape_sequences(tmp_path: Path) -> None:
    async def rude_host(request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        await socket.receive()
        await socket.send_bytes(pack(["refused", "\x1b[2J\x1b]0;owned\x07" + "x" * 5000]))
        await socket.close()
        return socket

    runner, port = await listen({WATCH_PATH: rude_host}, "127.0.0.1", identity=Ed25519PrivateKey.generate())
    try:
        with pytest.raises(LanError) as refusal:
            await asyncio.wait_for(watch(("127.0.0.1", port), "Sam"), TIMEOUT)
    finally:
        await runner.cleanup()
    assert "\x1b" not in str(refusal.value) and "\x07" not in str(refusal.value)
    assert len(str(refusal.value)) < 300


async def test_a_watch_frame_that_is_not_a_watch_is_refused(tmp_path: Path) -> None:
    host, hosting, port, _said = await open_host(tmp_path)
    try:
        async with aiohttp.ClientSession() as session:
            socket = await session.ws_connect(url_for("127.0.0.1", port, WATCH_PATH),
                                              ssl=client_context(Ed25519PrivateKey.generate()))
            await socket.send_bytes(pack(["watch", "\x00bad"]))
            answer = unpack((await asyncio.wait_for(socket.receive(), TIMEOUT)).data)
            assert answer[0] == "refused" and "name" in answer[1]
            await socket.close()
        assert not host.gallery.spectators
    finally:
        hosting.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(hosting, return_exceptions=True)


def test_the_live_table_follows_the_game_and_stays_where_the_viewer_steps_back(game: TableRun) -> None:
    """The watch screen: each state the audit reaches adds a step where a replay has one; at
    the last step it follows the game, stepped back it stays, End follows again; a spectator
    sees only what is public, and as a seat what the replay of the log so far shows that seat; a
    failure and the end show in the title."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input

    from cli.table.replay_view import ReplayApp
    from cli.table.watch_view import WatchApp
    from tests.test_play_app import Terminal

    records = records_of(game)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal(120, 40)):
        replay_steps = len(ReplayApp(records).frames)
        live = LiveAudit()
        live.add(records[0])
        screen = WatchApp(live.records)
        assert "watching live" in screen.screen_text()
        # Every seat's key as its player's machine shows it ("your key: ..."): only the players
        # can tell whether the host seated their keys (attack A57).
        text = " ".join(screen.screen_text().split())
        table = game.peers[0].table
        assert table is not None
        for seat in range(3):
            halves = fingerprint(table.keys[seat])[:19], fingerprint(table.keys[seat])[20:]
            assert f"seat {seat + 1}: {table.names[seat]}, key: {halves[0]} {halves[1]}" in text, text
        # Up to the hand's reveal: mid-hand, as far as anybody's cards go.
        split = next(i for i, raw in enumerate(records) if parse_entry(raw).kind == "reveal")
        assert split > 20
        for raw in records[1:split]:
            live.add(raw)
            assert live.table is not None
            screen.add(live.table, raw)
        assert screen.at == len(screen.frames) - 1  # following
        screen.press("←")
        screen.press("←")
        held = screen.at
        screen.press("2")  # as Bob, mid-hand: no more than a spectator sees (his key is not out)
        assert screen.me == 1 and "reveal has come" in screen.screen_text()
        assert all(screen._view(f).known == f.engine.known for f in screen.frames)
        screen.press("0")
        for raw in records[split:]:
            live.add(raw)
            assert live.table is not None
            screen.add(live.table, raw)
        assert screen.at == held  # stepped back: it stays
        screen.over(live.report().verdict())
        assert len(screen.frames) == replay_steps  # the same steps as the replay of the log
        screen.press("end")
        assert screen.at == len(screen.frames) - 1 and screen.state().winner is not None
        assert "game over" in screen.screen_text()
        # As Bob at the last step of the hand: the reveal has come, his cards are open; as a
        # spectator at that step, they are what the end-of-hand reveal shows, and no more.
        screen.press("2")
        assert screen.me == 1
        replayed = ReplayApp(records, seat=1)
        as_bob = [screen._view(f).known for f in screen.frames]
        assert as_bob == [replayed._view(f).known for f in replayed.frames]  # as the replay shows
        assert any(len(seen) > len(f.engine.known) for seen, f in zip(as_bob, screen.frames, strict=True))
        assert screen.log_told() == replayed.narrator.told[:len(screen.log_told())]
        screen.press("0")
        assert screen.me is None
        screen.failed("VIOLATION: seat 2: entry 9: a test")
        assert "VIOLATION: seat 2" in screen.screen_text()


# ----------------------------------------------------------------- a second seat (--also)


async def test_a_second_seat_serves_its_spectators_the_same_history(tmp_path: Path) -> None:
    """Attack A57, the check: a spectator who watches the host and, with ``--also``, a player's
    own machine gets the same history from both, each checked by its own audit."""
    import socket

    _host, hosting, port, _said = await open_host(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        bobs_port = probe.getsockname()[1]
    joiner = Joiner(f"127.0.0.1:{port}", "Bob", "greedy", "127.0.0.1", tmp_path / "bob", say=lambda _: None,
                    listen_port=bobs_port)
    joining = asyncio.ensure_future(joiner.run())
    while joiner.peer is None:
        await asyncio.sleep(0.01)
    at_host = asyncio.ensure_future(watch(("127.0.0.1", port), "Sam"))
    at_bob = asyncio.ensure_future(watch(("127.0.0.1", bobs_port), "Sam", any_seat=True))
    results = await asyncio.wait_for(asyncio.gather(hosting, joining, at_host, at_bob), TIMEOUT)
    host_feed, bob_feed = results[2], results[3]
    assert host_feed.report.clean and bob_feed.report.clean, (host_feed.summary(), bob_feed.summary())
    assert host_feed.records == bob_feed.records and one_history(host_feed.records, bob_feed.records) is None
    assert results[1].peer.seat != 0  # (Bob's machine: not the host)


def test_two_feeds_of_different_tables_or_a_fork_are_caught(game: TableRun) -> None:
    """Attack A57: a host that seated keys of its own shows a complete, clean game, but a
    player's machine serves another table entry; and a host that forks shows an entry its
    author signed twice for one place. Each feed audits clean on its own; compared, they do
    not make one history."""
    records = records_of(game)
    other = [entry.raw for entry in play_table([POLICIES["greedy"]] * 3, RULES, seed=12).peers[0].log]
    assert one_history(records, records[:30]) is None  # a feed behind the other is no fork
    assert "do not serve one table" in (one_history(records, other) or "")
    k = move_at(records, 40)
    author = parse_entry(records[k]).author
    twin = rewritten(game, k, [0, "another"])
    table = game.peers[0].table
    assert table is not None
    fork = one_history(records, [*records[:k], twin])
    assert fork is not None
    assert fork.startswith(f"{table.name(author)} signed two different entries for entry {k}"), fork
