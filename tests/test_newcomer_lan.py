"""Issue 25, the LAN as a newcomer meets it: what the host, a joiner, a spectator and the
players read. Leaving ``p2p10 watch`` (q, or Ctrl-C) stops it and says where its log is; a
game under way stays announced, is listed as such, found by ``watch NAME``, and ``join NAME``
says it has started; who watches is a notice, not the host's chat; the host's lines name
addresses others can dial, the table's name, and "press Enter" again once the table is full;
``join`` of an address where nobody answers says so in plain words, and a search for a table
that is not there ends once the network has gone quiet.

Everything runs on 127.0.0.1 (Zeroconf bound to it, its probing patched down as in
tests/test_discovery.py); every table carries a fresh name."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input

from cli import UsageError, finding
from cli.main import main
from p2p10.i18n import set_language
from p2p10.log import fingerprint
from p2p10.narrate import Narrator
from p2p10.rules import RuleSet
from protocol import lan
from protocol.discovery import BadAdvertisement, TableAd, TableBrowser, advertise
from protocol.lan import GameResult, LanError, Timing
from protocol.lan_host import Host
from protocol.lan_join import Joiner, Resumer
from protocol.watch import WatchResult, watch
from tests.test_discovery import LOOPBACK, make_ad
from tests.test_join_search import fast_zeroconf  # noqa: F401 - an autouse fixture, used here too
from tests.test_lan_screen import Screens, until
from tests.test_play_app import Terminal

TIMEOUT = 60.0
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    yield
    set_language("en")


Hosting = tuple[Host, "asyncio.Future[GameResult]", int, list[str]]


async def slow_host(tmp_path: Path, title: str | None = None, **options: object) -> Hosting:
    """Ann's table on 127.0.0.1 for two: a whole game, her bot-played seat thinking a while
    over each move (so that the game goes on well past the test) and her own bot in the other
    seat: it starts at once. Its task, port and lines."""
    said: list[str] = []
    host = Host("Ann", 2, RuleSet.parse([]), "greedy", "127.0.0.1", save_dir=tmp_path / "ann",
                say=said.append, title=title, bots=1, timing=Timing(think=0.4),
                **options)  # type: ignore[arg-type]
    hosting = asyncio.ensure_future(host.run())
    await until(lambda: said)
    return host, hosting, int(said[0].rpartition(":")[2]), said


async def stop(*tasks: asyncio.Future[object]) -> None:
    for task in tasks:
        task.cancel()
    with contextlib.suppress(Exception):
        await asyncio.gather(*tasks, return_exceptions=True)


# ------------------------------------------------------------------ 4: leaving p2p10 watch

async def test_q_on_the_watch_screen_stops_the_watch_and_says_where_the_log_is(tmp_path: Path) -> None:
    """q closes the screen mid-game: the command stops at once (before, it ran on unseen to
    the game's end) and its last line says so, with the log's path."""
    from cli.watch_cmd import _watch_screen

    host, hosting, port, _said = await slow_host(tmp_path)
    try:
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal(100, 30)):
            leave = asyncio.Event()
            watching = asyncio.ensure_future(_watch_screen(("127.0.0.1", port), "Eve", tmp_path / "eve",
                                                           None, None, False, leave))
            await until(lambda: host.peers and len(host.peers[0].log) > 12)
            await asyncio.sleep(0.3)  # the screen is up by now
            pipe.send_text("q")
            result: WatchResult = await asyncio.wait_for(watching, TIMEOUT)
        assert not hosting.done() and not host.peers[0].finished  # the game goes on without Eve
    finally:
        await stop(hosting)
    line = result.summary()
    assert line.startswith("you stopped watching before the game ended: INCOMPLETE"), line
    assert result.log_path is not None and f"; log {result.log_path}" in line, line
    assert result.log_path.read_bytes()  # what came is saved


async def test_ctrl_c_stops_p2p10_watch_and_prints_its_log(tmp_path: Path) -> None:
    """``p2p10 watch HOST:PORT --save DIR`` into a pipe, then Ctrl-C (SIGINT) mid-game: it
    prints that it stopped and where the log is, and exits 0 (before: exit 130, not a word)."""
    host, hosting, port, _said = await slow_host(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8", "LANGUAGE": "en"}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cli.main", "watch", f"127.0.0.1:{port}", "--save", str(tmp_path / "eve"),
        "--name", "Eve", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=env)
    try:
        assert process.stdout is not None
        first = await asyncio.wait_for(process.stdout.readline(), TIMEOUT)
        assert b"watching the table at 127.0.0.1" in first, first
        await until(lambda: host.peers and len(host.peers[0].log) > 12)
        await asyncio.sleep(0.5)
        process.send_signal(signal.SIGINT)
        out, _err = await asyncio.wait_for(process.communicate(), TIMEOUT)
        assert not host.peers[0].finished
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        await stop(hosting)
    text = out.decode()
    assert process.returncode == 0, text
    logs = list((tmp_path / "eve").glob("*-watch.p2p10"))
    assert len(logs) == 1, text
    assert "you stopped watching before the game ended: INCOMPLETE" in text, text
    assert f"; log {logs[0]}" in text, text


# ------------------------------------------------------------ 5: a game in progress, by name

def test_a_started_table_is_announced_as_such_and_a_false_one_is_skipped() -> None:
    """The TXT record says ``g=1`` for a game under way; the record is anybody's, so a
    "started" table that claims a free seat (to lure joiners into a refusal) is malformed and
    skipped, and only ``1`` means started."""
    ad = TableAd("Kitchen", "Ann", 3, 0, (), make_ad().fingerprint, ("127.0.0.1", 4000), started=True)
    txt = ad.to_txt()
    assert txt[b"g"] == b"1" and TableAd.from_txt(txt, ad.address) == ad
    assert ad.as_json()["started"] is True
    assert TableAd.from_json(ad.as_json(), ad.address) == ad
    with pytest.raises(BadAdvertisement):
        TableAd.from_txt({**txt, b"f": b"2"}, ad.address)
    assert not TableAd.from_txt({**txt, b"g": b"yes"}, ad.address).started


async def test_a_game_under_way_is_listed_found_by_name_and_join_points_to_watch(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    title = f"Kitchen {uuid.uuid4().hex[:8]}"
    host, hosting, port, _said = await slow_host(tmp_path, title=title)
    try:
        await until(lambda: host.peers and len(host.peers[0].log) > 3)  # dealing: started
        # watch NAME finds it (before: "no open table called ... heard"; no table at all).
        found = await asyncio.wait_for(finding.find_table(title, "127.0.0.1", 3600, seats_free=False),
                                       TIMEOUT)
        assert found.started and found.address == ("127.0.0.1", port) and found.seats == 2
        # join NAME says the game has started and how to watch it.
        with pytest.raises(UsageError) as refused:
            await asyncio.wait_for(finding.find_table(title, "127.0.0.1", 3600), TIMEOUT)
        assert str(refused.value) == (f"the game at table '{title}' has started: no seat is free "
                                      f"now; watch it with p2p10 watch '{title}'")
        # join HOST:PORT hears the same from the host, with the command to watch.
        with pytest.raises(LanError) as late:
            await asyncio.wait_for(Joiner(f"127.0.0.1:{port}", "Bob", "greedy", "127.0.0.1",
                                          tmp_path / "bob", say=lambda _: None).run(), TIMEOUT)
        assert str(late.value) == ("the game at this table has started: no seat is free now; "
                                   f"watch it with p2p10 watch 127.0.0.1:{port}")
        # p2p10 tables lists it as a game under way.
        capsys.readouterr()
        args = argparse.Namespace(timeout=4.0, at=None, interface="127.0.0.1", json=False)
        assert await asyncio.to_thread(finding.cmd_tables, args) == 0
        listed = capsys.readouterr().out
        line = next((line for line in listed.splitlines() if line.startswith(title)), listed)
        assert "game under way, 2 players" in line, listed
        assert "watch a game under way: p2p10 watch 'TABLE NAME' (or HOST:PORT)" in listed, listed
    finally:
        await stop(hosting)


async def test_a_resumed_host_announces_its_table_again_as_a_game_under_way(tmp_path: Path) -> None:
    """A host stopped mid-game and brought back with ``p2p10 resume`` announces its table again,
    under its name and as started, so that ``watch NAME`` still finds it (before, it served
    spectators again but said nothing on the network)."""
    title = f"Kitchen {uuid.uuid4().hex[:8]}"
    host, hosting, port, _said = await slow_host(tmp_path, title=title)
    await until(lambda: host.peers and len(host.peers[0].log) > 3)  # dealing: started
    await stop(hosting)
    log = next((tmp_path / "ann").glob("*-seat1.p2p10"))  # the host's own seat's
    resuming = asyncio.ensure_future(Resumer(log, "greedy", "127.0.0.1", say=lambda _: None).run())
    try:
        found = await asyncio.wait_for(finding.find_table(title, "127.0.0.1", 3600, seats_free=False),
                                       TIMEOUT)
        assert found.started and found.address == ("127.0.0.1", port), found
    finally:
        await stop(resuming)


async def test_a_false_started_table_of_the_same_name_cannot_divert_a_join_or_a_watch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack: a stranger announces a "started" table under an open table's name. ``join
    NAME`` still finds the open one; ``watch NAME`` hears two and asks for an address rather
    than follow the stranger's."""
    # Both are announced before the search; on a machine loaded by the suite's other processes
    # the second may answer more than the usual second after the first: wait for it here.
    monkeypatch.setattr(finding, "JOIN_SETTLE", 4.0)
    title = f"Kitchen {uuid.uuid4().hex[:8]}"
    real = make_ad(title)
    # Mallory's own key (before: the same fingerprint as the real host's, by a replace that
    # changed nothing, so both announced one instance name and zeroconf's renaming decided
    # which one a browser heard: the test failed when other processes loaded the machine).
    fake = TableAd(title, "Mallory", 2, 0, (), fingerprint(b"\x02" * 32),
                   ("127.0.0.1", real.address[1] % 60000 + 1024), started=True)
    async with await advertise(real, LOOPBACK), await advertise(fake, LOOPBACK):
        # Both on the network before the searches (a loaded machine may answer for one late).
        async with TableBrowser(["127.0.0.1"]) as browser:
            await until(lambda: sum(t.table == title for t in browser.tables.values()) == 2)
        assert await asyncio.wait_for(finding.find_table(title, "127.0.0.1", 3600), TIMEOUT) == real
        with pytest.raises(UsageError) as two:
            await asyncio.wait_for(finding.find_table(title, "127.0.0.1", 5, seats_free=False), TIMEOUT)
    assert f"2 tables are called {title!r}" in str(two.value)


# ------------------------------------------------------------- 9: who watches is a notice

@pytest.mark.parametrize(("lang", "shown", "nobody"), [
    ("en", "Watching the table now (1): Eve", "Nobody is watching the table now."),
    ("de", "Es schaut jetzt zu (1): Eve", "Niemand schaut jetzt zu."),
    ("es", "Mirando la mesa ahora (1): Eve", "Ahora nadie mira la mesa.")])
def test_the_notice_of_who_watches_is_nobodys_words_in_the_players_language(
        lang: str, shown: str, nobody: str) -> None:
    """The host's machine says who watches with a line of its seat; every player's move log
    shows it as a notice in their language (before: "Ann said: (watching: Eve)")."""
    from p2p10.chatroom import spectators_notice

    set_language(lang)
    for me in (0, 1):  # the host's own screen, and another player's
        narrator = Narrator(["Ann", "Bob"], me, second_person=True)
        narrator.said(0, spectators_notice(["Eve"]))
        assert narrator.lines[-1] == shown, narrator.lines
    narrator.said(0, spectators_notice([]))
    assert narrator.lines[-1] == nobody, narrator.lines


async def test_a_player_sees_a_spectator_as_a_notice_and_no_key_for_bots_that_are_not_there(
        tmp_path: Path) -> None:
    """Ann, a person, hosts Bob's bot; Eve watches. Ann's screen tells of Eve as a notice, not
    as her own chat; and with no bots at the table its key bar has no "+ faster" (issue 25
    point 15)."""
    from tests.test_lan_screen import open_host

    with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal(100, 30)):
        screens = Screens()
        _host, hosting, address, _said = await open_host(tmp_path, 2, None, front=screens.front)
        joining = asyncio.ensure_future(Joiner(address, "Bob", "greedy", "127.0.0.1", tmp_path / "bob",
                                               say=lambda _: None).run())
        port = int(address.rpartition(":")[2])
        watching = asyncio.ensure_future(watch(("127.0.0.1", port), "Eve", save_dir=tmp_path / "eve"))
        try:
            await until(lambda: screens.apps)
            app = screens.apps[0]
            await until(lambda: "Eve" in app.screen_text())
            text = app.screen_text()
            assert "Watching the table now (1): Eve" in app.narrator.lines, app.narrator.lines
            assert "said" not in text and "/watching" not in text, text
            assert "faster" not in text and "slower" not in text, text
        finally:
            await stop(hosting, joining, watching)


def test_a_person_cannot_type_the_form_of_a_notice(tmp_path: Path) -> None:
    from p2p10.chatroom import typed_text
    from p2p10.errors import IllegalMove

    assert typed_text(" hi ") == "hi"
    with pytest.raises(IllegalMove, match="/watching"):
        typed_text("/watching 3: Eve, Sam, Max")


# ------------------------------------------------------------------ 13: the host's lines

def test_the_host_names_addresses_others_can_dial(monkeypatch: pytest.MonkeyPatch) -> None:
    """Listening on every interface, the host names the machine's network addresses (before:
    "listening on 0.0.0.0:39177", which nobody can dial)."""
    monkeypatch.setattr(lan, "network_addresses", lambda: ["192.168.1.20", "10.0.0.5"])
    assert lan.listening_line("0.0.0.0", 39177, None) == (
        "listening on port 39177; others dial 192.168.1.20:39177, 10.0.0.5:39177")
    monkeypatch.setattr(lan, "network_addresses", lambda: [])
    assert lan.listening_line("0.0.0.0", 39177, None) == (
        "listening on port 39177; no network address found: only this machine can dial "
        "127.0.0.1:39177")
    assert lan.listening_line("0.0.0.0", 39177, ("203.0.113.7", 41234)) == (
        "listening on port 39177; others dial 203.0.113.7:41234")
    assert lan.listening_line("127.0.0.1", 39177, None) == "listening on 127.0.0.1:39177"


async def test_the_host_names_its_table_and_says_press_enter_once_it_is_full(tmp_path: Path) -> None:
    said: list[str] = []
    host = Host("Ann", 2, RuleSet.parse(["hands=1"]), "greedy", "127.0.0.1", save_dir=tmp_path / "ann",
                say=said.append, title="Kitchen", advertised=False, start_when_full=False)
    hosting = asyncio.ensure_future(host.run())
    await until(lambda: said)
    joining = asyncio.ensure_future(Joiner(said[0].removeprefix("listening on "), "Bob", "greedy",
                                           "127.0.0.1", tmp_path / "bob", say=lambda _: None).run())
    try:
        await until(lambda: any("Bob sat down" in line for line in said))
        await asyncio.sleep(0.1)
    finally:
        await stop(hosting, joining)
    assert said[1].startswith("table 'Kitchen': 2 seats, rules: "), said
    assert host.table_id.hex()[:8] not in " ".join(said), said
    assert said[said.index("Bob sat down (2 of 2)") + 1] == "every seat is taken: press Enter to start", said


# ------------------------------------------------------------------------- 15: the LAN bits

def test_join_where_nobody_answers_says_so_in_plain_words(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["join", "127.0.0.1:1", "--autoplay", "greedy"]) == 2
    err = capsys.readouterr().err
    assert "nobody answers at 127.0.0.1:1: no table is open at that address" in err, err
    assert "Connect call failed" not in err, err


async def test_a_search_for_a_table_not_there_ends_once_the_network_is_quiet() -> None:
    """``join Nowhere`` (--timeout an hour here): it ends once the tables on the network have
    been heard and none is called so, saying how long it listened (before: the whole
    timeout)."""
    other = make_ad()
    async with await advertise(other, LOOPBACK):
        with pytest.raises(UsageError) as none:
            await asyncio.wait_for(finding.find_table(f"Nowhere {uuid.uuid4().hex[:8]}", "127.0.0.1",
                                                        3600), TIMEOUT)
    message = str(none.value)
    assert "heard in 3600 s" not in message and repr(other.table) in message, message


class SilentNetwork:
    """A table browser on a network where nothing is announced until :meth:`announce`."""

    def __init__(self, _interfaces: object) -> None:
        self.tables: dict[str, TableAd] = {}
        self.settled = True
        self.changed_at: float | None = None

    async def __aenter__(self) -> SilentNetwork:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        return None

    def announce(self, ad: TableAd) -> None:
        self.tables[ad.table] = ad
        self.changed_at = asyncio.get_running_loop().time()


async def test_a_search_on_a_silent_network_waits_for_a_host_that_is_just_starting(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Host and joins started together: while no table at all is heard, the search does not
    call the network quiet; it finds the table announced after the quiet time (before, it gave
    up once nothing had been heard for that long, and the host waited for ever)."""
    networks: list[SilentNetwork] = []

    def browser(interfaces: object) -> SilentNetwork:
        networks.append(SilentNetwork(interfaces))
        return networks[-1]

    monkeypatch.setattr(finding, "TableBrowser", browser)
    monkeypatch.setattr(finding, "QUIET_AFTER", 0.5)
    late = make_ad(f"Late {uuid.uuid4().hex[:8]}")
    searching = asyncio.ensure_future(finding.find_table(late.table, "127.0.0.1", 3600))
    await asyncio.sleep(1.5)  # three quiet times with nothing on the network
    assert not searching.done(), searching
    networks[0].announce(late)
    found = await asyncio.wait_for(searching, TIMEOUT)
    assert found.table == late.table


def test_a_spectator_sees_who_watches_as_a_notice_too() -> None:
    """On the watch screen, the host's notice of who watches is a notice too (before: "Ann:
    (watching: Eve)", as if Ann had said it)."""
    from cli.table.watch_view import WatchApp
    from tests.test_watch import records_of, the_game

    records = records_of(the_game())
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal(100, 30)):
        screen = WatchApp(records[:1])
        screen.heard(0, "/watching 2: Eve, Sam")  # as PROTOCOL 6.1.4 words it
        text = screen.screen_text()
    assert "Watching the table now (2): Eve, Sam" in text, text
    assert "Ann:" not in text and "/watching" not in text, text
