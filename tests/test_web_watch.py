"""``p2p10 watch --web``: the spectator's page (cli/web/watch_screen.py, cli/watch_cmd.py).

In this process: the screen fed a whole game entry by entry, as the watch feeds it, gives the
seat page's JSON, tells the terminal watch's story, and shows a violation at once. In processes
on 127.0.0.1: the page follows a LAN game of three processes to its end, CLEAN, over its
websocket as a browser would."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import re
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from cli.web.launch import URL_LINE
from cli.web.watch_screen import WATCHING, WatchScreen
from p2p10.audit import LiveAudit, audit_bytes, audit_records
from p2p10.engine import GameState
from p2p10.i18n import _, current_language, set_language
from p2p10.seat_view import SeatRow, as_json, seat_rows, sheet_view
from tests.browser import chrome, desktop, phone, shot
from tests.test_lan_processes import TIMEOUT, environment, p2p10, read_line, read_port, spawn, stop
from tests.test_watch import bad_logs, records_of, the_game
from tests.web_views import Follower

__all__ = ["chrome"]  # the fixture, taken by name below

SEAT_KEYS = {field.name for field in dataclasses.fields(SeatRow)}
# A seat's page's keys (cli/web/table_screen.py), and the verdict.
VIEW_KEYS = {"page", "v", "lang", "words", "readonly", "screen", "title", "status", "keys", "prompt", "log",
             "seats", "piles", "hand", "sheet", "side", "chart", "dealing", "over", "verdict"}


def fed(records: list[bytes], screen: WatchScreen | None = None,
        shown: bool = True) -> tuple[WatchScreen, list[dict[str, Any]]]:
    """A screen fed ``records`` as the watch feeds it, and its snapshot after every entry (if
    ``shown``: a browser shows it)."""
    screen = screen if screen is not None else WatchScreen(explicit="en")
    audit = LiveAudit()
    views = []
    for raw in records:
        failure = audit.add(raw)
        if failure is not None:
            screen.failed(failure)
            views.append(screen.snapshot())
            break
        screen.entry(audit)
        if shown:
            views.append(screen.snapshot())
    return screen, views


def test_the_page_shows_a_whole_game_as_a_spectator_sees_it() -> None:
    records = records_of(the_game())
    screen, views = fed(records)
    screen.over(audit_records(records).verdict())
    for view in views:
        json.dumps(view)  # plain JSON
        assert set(view) == VIEW_KEYS
        assert view["page"] == "watch" and view["readonly"] is True
        assert view["hand"] is None and view["prompt"] is None and view["keys"] == []
        assert all(set(seat) == SEAT_KEYS and seat["me"] is False for seat in view["seats"])
    # The seats, piles and sheet are the seat page's own builders' (p2p10.seat_view), seen by
    # nobody's eyes.
    last = screen.snapshot()
    assert screen.table is not None
    state = screen.table.engine
    assert last["seats"] == as_json(seat_rows(state, None))
    assert last["sheet"] == as_json(sheet_view(state))
    assert last["verdict"]["word"] == "CLEAN"
    # Along the way: cards counted in hands, melds laid down, a deal in progress, a discard.
    assert any(seat["cards"] for view in views for seat in view["seats"])
    assert any(seat["melds"] for view in views for seat in view["seats"])
    assert any(view["dealing"] for view in views)
    assert any(view["piles"] and view["piles"]["top"] for view in views)
    assert all(view["piles"] is None or view["piles"]["takeable"] is False for view in views)
    assert not any(view["over"] for view in views) and last["over"]
    assert [v["verdict"]["word"] for v in views[1:]] == [WATCHING] * (len(views) - 1)
    assert views[-1]["verdict"]["text"].startswith(f"every entry so far checks out ({len(records)}")


def test_the_page_tells_the_story_the_terminal_watch_tells() -> None:
    """One model: the move log's lines are the terminal watch screen's, word for word."""
    from cli.table.watch_view import WatchApp

    records = records_of(the_game())
    screen, _views = fed(records)
    app = WatchApp(records[:1])
    audit = LiveAudit()
    for raw in records:
        audit.add(raw)
        if len(audit.records) > 1:
            assert audit.table is not None
            app.add(audit.table, raw)
    terminal = [told.line for told in app.narrator.told if told.shown]
    page = [line["text"] for line in screen.log()]
    assert len(page) > 20
    # (the terminal cuts a key in halves for its narrow log; the page has it whole)
    terminal = [line.replace(" ", ":") if re.fullmatch(r"[0-9a-f:]+ [0-9a-f:]+", line) else line
                for line in terminal]
    assert terminal[-len(page):] == page


def test_a_violation_shows_at_once_in_red() -> None:
    records = bad_logs(the_game())["an illegal move, signed by its author"]
    _screen, views = fed(records)
    verdict = views[-1]["verdict"]
    assert verdict["word"] == "VIOLATION" and "seat" in verdict["text"]
    assert views[-1]["status"][-1] == [{"text": "VIOLATION: " + verdict["text"], "tone": "error"}]
    assert views[-2]["verdict"]["word"] == WATCHING


def test_chat_and_notes_go_to_the_status_lines() -> None:
    screen, _views = fed(records_of(the_game())[:3])
    screen.heard(1, "hello room")
    screen.heard(7, "from nowhere")
    screen.note("the link broke: dialling again")
    assert screen.table is not None
    assert screen.snapshot()["status"][-3:] == [
        [{"text": f"{screen.table.names[1]}: hello room", "tone": "info"}],
        [{"text": "?: from nowhere", "tone": "info"}],
        [{"text": "the link broke: dialling again", "tone": "dim"}]]


def test_the_page_speaks_the_first_visitors_language_unless_one_was_asked_for() -> None:
    records = records_of(the_game())
    try:
        screen, _views = fed(records[:60], WatchScreen(), shown=False)  # (the story waits for a browser)
        assert screen.narrator is None
        screen.hello(["fr-FR", "de-DE", "en"])
        screen.hello(["es"])  # the page's language is the first browser's
        german = screen.snapshot()
        assert german["lang"] == "de" and german["title"].startswith("p2p10 als Zuschauer, live")
        assert german["log"][0]["text"] == _("The keys at this table (each player can compare theirs):")
        assert german["log"][0]["text"] != "The keys at this table (each player can compare theirs):"
    finally:
        set_language("en")
    asked = WatchScreen(explicit="en")
    asked.hello(["de"])
    assert current_language() == "en"


def test_the_options_go_with_web(capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    assert main(["watch", "127.0.0.1:5", "--listen", "127.0.0.1:8080"]) == 2
    assert "--listen and --no-browser go with --web" in capsys.readouterr().err
    assert main(["watch", "127.0.0.1:5", "--web", "--listen", "nowhere"]) == 2
    assert "--listen takes HOST:PORT" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["watch", "127.0.0.1:5", "--web", "--no-browser", "--listen", f"127.0.0.1:{port}"]) == 2
    assert f"cannot serve the page on 127.0.0.1:{port}: " in capsys.readouterr().err


# ------------------------------------------------------------------ three processes


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def follow(url: str) -> list[dict[str, Any]]:
    """Open the page's socket as its script does, say hello, and take every view until the
    verdict is in; an action is sent on the way (the page is read-only: ignored)."""
    found = URL_LINE.match(url)
    assert found is not None, url
    netloc = f"{found['host']}:{found['port']}"
    views: list[dict[str, Any]] = []
    async with aiohttp.ClientSession() as client, client.ws_connect(
            f"http://{netloc}/ws?t={found['token']}", origin=f"http://{netloc}") as ws:
        await ws.send_json({"type": "hello", "langs": ["en"]})
        await ws.send_json({"type": "key", "key": "q"})
        page = Follower()
        while True:
            message = await ws.receive(timeout=4 * TIMEOUT)
            assert message.type == aiohttp.WSMsgType.TEXT, message
            view = page.heard(message.data)
            assert page.messages[-1]["type"] == ("view" if len(views) == 0 else "patch"), page.messages[-1]
            views.append(view)
            if view["verdict"]["word"] != WATCHING:
                return views


@contextlib.contextmanager
def room_game(tmp_path: Path, think: float = 0.0,
              ) -> Iterator[tuple[str, list[subprocess.Popen[str]], list[Path]]]:
    """A LAN table of three processes (``--autoplay``, ``think`` seconds a move) on 127.0.0.1
    and the room's page (``watch --web --listen``, read-only) up before the game starts: the
    page's address (the watch's first line), the processes (the watch second) and the players'
    folders."""
    env = environment(tmp_path)
    port = free_port()
    names = ("Ann", "Bob", "Cy")
    dirs = [tmp_path / name.lower() for name in names]
    common = ("--autoplay", "greedy", "--think", str(think), "--interface", "127.0.0.1")
    procs = [spawn(p2p10("host", "--name", "Ann", "--seats", "3", "--start-when-full", "--quiet-network",
                         "-o", "hands=1", "--save", str(dirs[0]), *common), env)]
    try:
        host_port = read_port(procs[0])
        procs.append(spawn(p2p10("watch", f"127.0.0.1:{host_port}", "--web", "--no-browser",
                                 "--listen", f"127.0.0.1:{port}", "--name", "Room",
                                 "--save", str(tmp_path / "room")), env))
        url = read_line(procs[1], r".*").group(0)  # the first line
        assert URL_LINE.match(url) and url.startswith(f"http://127.0.0.1:{port}/#t="), url
        for name, folder in zip(names[1:], dirs[1:], strict=True):
            procs.append(spawn(p2p10("join", f"127.0.0.1:{host_port}", "--name", name,
                                     "--save", str(folder), *common), env))
        yield url, procs, dirs
    finally:
        stop(procs)


def game_over(procs: list[subprocess.Popen[str]], dirs: list[Path], tmp_path: Path) -> GameState:
    """The page is up after the game until Ctrl-C, then the watch ends CLEAN; everybody's log
    is the players' log, clean: its final state."""
    watcher = procs[1]
    read_line(watcher, r"The game is over: the page stays up until you press Ctrl-C")
    watcher.send_signal(signal.SIGINT)
    out, err = watcher.communicate(timeout=TIMEOUT)
    assert watcher.returncode == 0, (out, err)
    assert out.rstrip().splitlines()[-1].startswith("CLEAN"), out
    assert "Traceback" not in err, err
    for proc in procs[2:] + procs[:1]:
        proc.communicate(timeout=TIMEOUT)
        assert proc.returncode == 0
    log = next(dirs[0].glob("*.p2p10")).read_bytes()
    assert next((tmp_path / "room").glob("*-watch.p2p10")).read_bytes() == log
    report = audit_bytes(log)
    assert report.clean and report.table is not None
    return report.table.engine


@pytest.mark.slow
def test_the_page_follows_a_lan_game_of_three_processes_to_its_clean_end(tmp_path: Path) -> None:
    """A browser's socket, as the page's script opens it, follows the game to the end, CLEAN,
    with the players' final scores; an action it sends is ignored (read-only)."""
    with room_game(tmp_path) as (url, procs, dirs):
        views = asyncio.run(follow(url))
        final = game_over(procs, dirs, tmp_path)
    last = views[-1]
    assert last["verdict"]["word"] == "CLEAN", last["verdict"]
    assert sorted(seat["name"] for seat in last["seats"]) == ["Ann", "Bob", "Cy"]
    assert [seat["points"] for seat in last["seats"]] == list(final.totals)
    assert last["sheet"]["totals"] == [str(total) for total in final.totals]
    # It followed the game as it went: seats with cards in hand, melds laid down.
    assert any(seat["cards"] for view in views for seat in view["seats"])
    assert any(seat["melds"] for view in views for seat in view["seats"])
    assert all(view["hand"] is None and view["keys"] == [] for view in views)


@pytest.mark.slow
@pytest.mark.browser
def test_the_room_sees_the_game_to_its_clean_end_in_a_browser(tmp_path: Path, chrome: Any) -> None:
    """Headless Chromium opens the printed address: the seats and the verdict as the game
    goes, CLEAN at the end with the final scores; screenshots at 1920x1080 and 360x740."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with room_game(tmp_path, think=0.2) as (url, procs, dirs):  # (a game to see as it goes)
        desktop(chrome)
        chrome.get(url)
        WebDriverWait(chrome, 4 * TIMEOUT).until(  # melds on the table (or already the end)
            lambda driver: driver.find_elements(By.CSS_SELECTOR, ".meld, .verdict-clean"))
        shot(chrome, tmp_path, "watch-playing-1920x1080")
        WebDriverWait(chrome, 4 * TIMEOUT).until(
            lambda driver: driver.find_elements(By.CSS_SELECTOR, ".verdict-clean"))
        assert "#t=" not in chrome.current_url  # the key has left the address bar
        seats = chrome.find_elements(By.CSS_SELECTOR, "[data-seat]")
        names = [seat.get_attribute("aria-label") for seat in seats]
        shot(chrome, tmp_path, "watch-1920x1080")
        phone(chrome)
        shot(chrome, tmp_path, "watch-360x740")
        text = chrome.find_element(By.TAG_NAME, "body").text
        final = game_over(procs, dirs, tmp_path)
    assert sorted(names) == ["Ann", "Bob", "Cy"]
    assert "CLEAN" in text and "every signature" in text and ".p2p10" not in text  # (no path)
    for total in final.totals:
        assert str(total) in text
