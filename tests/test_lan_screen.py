"""A person at a LAN table, on the same play screen as ``p2p10 play``, driven by keystrokes:
the host plays its seat by keys against a joiner's bot and one of its own bots (marked as the
host's in every view), chats both ways, and the game ends with every log identical and clean.
Also: a table started by hand (Enter) with the players seated so far, and a player who quits
mid-game leaves with the way back printed."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input

from cli.table.lan import LanTableApp
from p2p10.audit import audit_bytes
from p2p10.bots import POLICIES
from p2p10.peer import ChatLine
from p2p10.rules import RuleSet
from protocol.lan import GameResult, LanSeat, Timing
from protocol.lan_host import Host
from protocol.lan_join import Joiner
from tests.test_play_app import Keyboard, Terminal, play_by_keys, type_move

TIMEOUT = 60.0


async def until(condition: object, seconds: float = TIMEOUT) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


class Screens:
    """The play screens opened in this process (the ``front`` a Host or Joiner is given)."""

    def __init__(self) -> None:
        self.apps: list[LanTableApp] = []

    async def front(self, seat: LanSeat) -> None:
        app = LanTableApp(seat)
        self.apps.append(app)
        await app.run()


async def open_host(tmp_path: Path, seats: int, policy: str | None, **options: object
                    ) -> tuple[Host, asyncio.Future[GameResult], str, list[str]]:
    """A host on 127.0.0.1 (not announced) for a one-hand game; its task, address and lines."""
    said: list[str] = []
    host = Host("Ann", seats, RuleSet.parse(["hands=1"]), policy, "127.0.0.1",
                save_dir=tmp_path / "ann", say=said.append, advertised=False, **options)  # type: ignore[arg-type]
    hosting = asyncio.ensure_future(host.run())
    await until(lambda: said)
    return host, hosting, said[0].removeprefix("listening on "), said


async def test_a_person_plays_a_lan_table_by_keys_and_chats(tmp_path: Path) -> None:
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal(100, 30)):
        screens = Screens()
        apps = screens.apps
        _host, hosting, address, _said = await open_host(tmp_path, 3, None, bots=1, front=screens.front)
        joiner = Joiner(address, "Bob", "greedy", "127.0.0.1", tmp_path / "bob", say=lambda _: None)
        joining = asyncio.ensure_future(joiner.run())
        try:
            await until(lambda: apps)
            app = apps[0]
            kb = Keyboard(app, pipe)
            assert app.names == ["Ann", "Bob", "Bot 1 (Ann's bot)"]  # whose bot it is, for all to see
            await kb.until(lambda: "(Ann's bot)" in kb.screen(), TIMEOUT)
            # Chat both ways: typed here, heard by Bob's peer; said by Bob, shown here.
            await kb.keys("c", *"hi all", "Enter")
            assert joiner.peer is not None
            await kb.until(lambda: ChatLine(0, "hi all") in joiner.peer.chat, TIMEOUT)  # type: ignore[union-attr]
            joiner.peer.say("good luck")
            await kb.until(lambda: "Bob said: good luck" in kb.screen(), TIMEOUT)
            assert "You said: hi all" in app.narrator.lines
            await kb.keys("c", *"dropped", "\x1b")  # Esc drops a line being typed
            assert app.typing is None and not any("dropped" in line for line in app.narrator.lines)
            moves: list[str] = []
            await play_by_keys(kb, moves, [])
            await kb.until(lambda: app.screen == "over", TIMEOUT)
            await kb.keys("Enter")  # leaves
            results = await asyncio.wait_for(asyncio.gather(hosting, joining), TIMEOUT)
        finally:
            for task in (hosting, joining):
                task.cancel()
    # Each turn typed a draw (from either pile: a short hand may give only discards to take)
    # and a discard; every move typed was checked against the log as it went.
    assert "Discard" in moves and {"DrawStock", "TakeDiscard"} & set(moves), moves
    assert all(isinstance(r, GameResult) and r.peer.finished for r in results)
    logs = [p.read_bytes() for p in sorted((tmp_path / "ann").glob("*.p2p10"))]
    logs += [p.read_bytes() for p in (tmp_path / "bob").glob("*.p2p10")]
    assert len(logs) == 3 and logs[0] == logs[1] == logs[2]  # Ann, her bot, Bob
    report = audit_bytes(logs[0])
    assert report.clean, report.verdict()
    assert all(b"dropped" not in log and b"hi all" not in log for log in logs)  # chat is not logged


async def test_a_table_started_by_hand_and_a_player_who_quits(tmp_path: Path) -> None:
    """Four seats offered, one joiner: the host starts by hand and its one bot fills a seat;
    the joiner, a person, quits mid-game and is told how to go back."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal()):
        screens = Screens()
        apps = screens.apps
        host, hosting, address, said = await open_host(tmp_path, 4, "greedy", bots=1,
                                                       start_when_full=False)
        try:
            assert host.can_start() is None  # the host and its bot could already play
            joiner = Joiner(address, "Bob", None, "127.0.0.1", tmp_path / "bob", say=said.append,
                            front=screens.front)
            joining = asyncio.ensure_future(joiner.run())
            await until(lambda: any("Bob sat down" in line for line in said))
            host.start()
            await until(lambda: apps)
            app = apps[0]
            kb = Keyboard(app, pipe)
            assert app.seat == 1 and app.names == ["Ann", "Bob", "Bot 1 (Ann's bot)"]
            await kb.until(kb.my_turn, TIMEOUT)
            await kb.keys("d")
            await kb.until(lambda: kb.my_turn() and kb.local.view().stage == "play", TIMEOUT)
            await kb.keys("q", "y")
            result = await asyncio.wait_for(joining, TIMEOUT)
        finally:
            hosting.cancel()
    assert not result.peer.finished
    assert "p2p10 resume " in result.summary() and str(result.log_path) in result.summary()
    assert result.log_path.exists()


async def test_on_screen_the_players_go_on_without_one_who_left(tmp_path: Path) -> None:
    """Cy's machine goes away mid-game; Ann's screen says who is missing, she presses g and
    agrees, Bob's machine agrees by itself (--go-on-after), and Ann's machine plays Cy's seat
    as her bot to the end; every log identical and clean."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal(120, 30)):
        screens = Screens()
        apps = screens.apps
        host, hosting, address, _said = await open_host(tmp_path, 3, None, front=screens.front,
                                                        timing=Timing(away_after=2.0))
        bob = Joiner(address, "Bob", "greedy", "127.0.0.1", tmp_path / "bob", say=lambda _: None,
                     timing=Timing(away_after=2.0, go_on_after=1.0))
        cy = Joiner(address, "Cy", "greedy", "127.0.0.1", tmp_path / "cy", say=lambda _: None)
        tasks = [hosting, asyncio.ensure_future(bob.run()), asyncio.ensure_future(cy.run())]
        try:
            await until(lambda: apps)
            app = apps[0]
            kb = Keyboard(app, pipe)
            await kb.until(kb.my_turn, TIMEOUT)
            tasks[2].cancel()  # Cy's machine is gone
            await asyncio.gather(tasks[2], return_exceptions=True)
            await kb.keys("g")
            assert "Nobody's machine has been out of reach" in kb.screen()  # it is Ann's own turn
            await kb.keys("d")  # a draw needs Cy's token: now the table waits for Cy
            await kb.until(lambda: "Cy is out of reach" in kb.screen(), TIMEOUT)
            await kb.until(lambda: "g  go on without Cy" in kb.screen(), TIMEOUT)  # the key, after away_after
            await kb.keys("g")
            assert "again without Cy?" in kb.screen()
            await kb.keys("y")
            await kb.until(lambda: any(e.kind == "away" for e in host.peers[0].log), TIMEOUT)
            await kb.until(lambda: "Cy (Ann's bot)" in kb.screen(), TIMEOUT)
            await play_by_keys(kb, [], [])
            await kb.until(lambda: app.screen == "over", TIMEOUT)
            await kb.keys("Enter")
            results = await asyncio.wait_for(asyncio.gather(*tasks[:2]), TIMEOUT)
        finally:
            for task in tasks:
                task.cancel()
    assert all(r.peer.finished for r in results)
    logs = [p.read_bytes() for p in sorted((tmp_path / "ann").glob("*.p2p10"))]
    logs += [p.read_bytes() for p in (tmp_path / "bob").glob("*.p2p10")]
    assert len(logs) == 3 and logs[0] == logs[1] == logs[2]  # Ann, the bot she runs for Cy, Bob
    report = audit_bytes(logs[0])
    # Complete with no violation; the voided hand's unrevealed steps are listed (exit 3), and
    # the takeover of Cy's seat is named.
    assert report.violation is None and report.complete, report.verdict()
    assert report.exit_status in (0, 3) and [t.seats for t in report.takeovers] == [(2,)]


async def test_a_connected_player_who_thinks_is_shown_thinking_and_never_offered_away(tmp_path: Path) -> None:
    """Bob is connected and takes his time over every move: Ann's title line says he is
    thinking, the footer offers no "go on", and pressing g anyway says why, as a line on the
    screen."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal(120, 30)):
        screens = Screens()
        apps = screens.apps
        _host, hosting, address, _said = await open_host(tmp_path, 3, None, bots=1, front=screens.front,
                                                         timing=Timing(away_after=1.0))
        bob = Joiner(address, "Bob", "greedy", "127.0.0.1", tmp_path / "bob", say=lambda _: None,
                     timing=Timing(away_after=1.0, think=30.0))
        joining = asyncio.ensure_future(bob.run())
        try:
            await until(lambda: apps)
            app = apps[0]
            app.thinking_shown = 2.0
            kb = Keyboard(app, pipe)
            deadline = asyncio.get_running_loop().time() + TIMEOUT
            rng = random.Random(1)
            while "Bob is thinking (" not in kb.screen():  # Ann plays her turns meanwhile
                assert asyncio.get_running_loop().time() < deadline, "Bob never thought"
                if kb.my_turn():
                    await type_move(kb, POLICIES["greedy"](kb.local.view(), 0, rng), [])
                await asyncio.sleep(0.05)
            assert "go on without" not in kb.screen()
            await kb.keys("g")
            assert "Bob is connected and thinking: the table waits for them" in kb.screen()
            assert app.prompt is None and not any(e.kind == "away" for e in app.lan.user.log)
            await kb.keys("q", "y")
            result = await asyncio.wait_for(hosting, TIMEOUT)
        finally:
            hosting.cancel()
            joining.cancel()
            await asyncio.gather(hosting, joining, return_exceptions=True)
    assert not result.peer.finished and not result.peer.faults


async def test_a_host_who_quits_takes_their_bots_along(tmp_path: Path) -> None:
    """The host plays on screen with one bot of their own; they quit mid-game: the command
    ends (the bot does not play on alone), and says how to go back."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal()):
        screens = Screens()
        apps = screens.apps
        host, hosting, address, _said = await open_host(tmp_path, 3, None, bots=1, front=screens.front)
        joining = asyncio.ensure_future(
            Joiner(address, "Bob", "greedy", "127.0.0.1", tmp_path / "bob", say=lambda _: None).run())
        try:
            await until(lambda: apps)
            kb = Keyboard(apps[0], pipe)
            await kb.until(kb.my_turn, TIMEOUT)
            await kb.keys("q", "y")
            result = await asyncio.wait_for(hosting, TIMEOUT)
        finally:
            hosting.cancel()
            joining.cancel()
            await asyncio.gather(hosting, joining, return_exceptions=True)
    assert not result.peer.finished and "p2p10 resume" in result.summary()
    assert all(not peer.finished for peer in host.peers)


async def test_a_player_whom_nobody_answers_is_told_so_on_the_screen(tmp_path: Path) -> None:
    """Issue 24, point 7: every other machine goes (the others finished without Ann while her
    laptop slept, or left); after ``alone_after`` her screen says that nobody answers, where
    her log is and how to fetch the rest, instead of waiting for ever; the line she is left
    with says so too."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal(100, 30)):
        screens = Screens()
        apps = screens.apps
        _host, hosting, address, _said = await open_host(tmp_path, 3, None, front=screens.front,
                                                         timing=Timing(alone_after=2.0))
        others = [asyncio.ensure_future(Joiner(address, name, "greedy", "127.0.0.1", tmp_path / name,
                                               say=lambda _: None).run()) for name in ("Bob", "Cy")]
        try:
            await until(lambda: apps)
            app = apps[0]
            kb = Keyboard(app, pipe)
            await kb.until(kb.my_turn, TIMEOUT)
            for task in others:
                task.cancel()  # every other machine is gone
            await asyncio.gather(*others, return_exceptions=True)
            await kb.until(lambda: "Nobody at the table answers." in kb.screen(), TIMEOUT)
            screen = " ".join(kb.screen().split())
            assert "Nobody at the table has answered for 2 seconds" in screen, screen
            assert "p2p10 resume" in screen and "fetches the rest" in screen, screen
            await kb.keys("Enter")
            result = await asyncio.wait_for(hosting, TIMEOUT)
        finally:
            for task in [hosting, *others]:
                task.cancel()
    assert result.alone is not None and not result.peer.finished
    assert result.summary().startswith("nobody at the table has answered for 2 seconds")
    assert str(result.log_path) in result.summary() and result.log_path.exists()


async def test_a_screen_opened_late_tells_the_entries_and_chat_that_come_while_it_tells(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A play screen opened on a LAN game under way (as ``p2p10 resume`` does) tells the story
    so far in slices while the mesh plays on: every entry that comes meanwhile is told once, in
    its place (the hand's end too), and a chat line heard meanwhile among the moves around it."""
    monkeypatch.setattr("cli.seat.play.STORY_SLICE_S", 0.0)  # the loop runs after every entry
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal(100, 30)):
        apps: list[LanTableApp] = []
        arrived: list[int] = []  # the entries in the log when Bob's line arrived
        lines_at: dict[int, int] = {}
        story: list[int] = []
        joiner: Joiner | None = None

        async def late_front(seat: LanSeat) -> None:
            await until(lambda: seat.dealing() is None and len(seat.view().history) >= 4)
            app = LanTableApp(seat, tell_later=True)
            apps.append(app)
            seat.chat_listeners.append(lambda _line: arrived.append(seat.entries))
            history = seat.history

            def steps() -> Iterator[Any]:
                story.append(seat.entries)  # the entries the story began with
                for k, step in enumerate(history(), 1):
                    yield step
                    # The lines told with the first k entries (and the lines heard before).
                    lines_at[k] = len(app.narrator.lines)
                    # A slow machine: the mesh's messages pile up between the story's steps
                    # (the loop has one turn after each).
                    time.sleep(0.02)
                    if k == 3:  # Bob says it early in the story; it arrives a few steps on
                        assert joiner is not None and joiner.peer is not None
                        joiner.peer.say("hello")
                story.append(k)  # the entries it told

            seat.history = steps  # type: ignore[method-assign]
            await app.run()

        _host, hosting, address, _said = await open_host(tmp_path, 2, "greedy", front=late_front)
        joiner = Joiner(address, "Bob", "greedy", "127.0.0.1", tmp_path / "bob", say=lambda _: None)
        joining = asyncio.ensure_future(joiner.run())
        try:
            await until(lambda: apps and apps[0].screen == "over")
            app = apps[0]
            seat = app.lan
            began, told = story
            assert told >= began + 4  # the game went on during the story, which caught up
            await Keyboard(app, pipe).keys("Enter")
            await asyncio.wait_for(asyncio.gather(hosting, joining), TIMEOUT)
        finally:
            for task in (hosting, joining):
                task.cancel()
    lines = app.narrator.lines
    assert lines.count("Bob said: hello") == 1
    # Told right after the entries the log had when it came: in the story if it came before
    # the story caught up, else after it.
    assert len(arrived) == 1
    if arrived[0] in lines_at:
        assert lines.index("Bob said: hello") == lines_at[arrived[0]]
    else:
        assert lines.index("Bob said: hello") >= lines_at[max(lines_at)]
    # The story as a screen opened on the finished log tells it at once, the chat line aside.
    told = LanTableApp(seat).narrator.lines
    assert [line for line in lines if line != "Bob said: hello"] == told
    assert any(" went out" in line or " wins" in line for line in told), told[-5:]
    assert not any(line.startswith("You drew a card") for line in told)
