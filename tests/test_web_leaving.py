"""Leaving ``p2p10 play --web`` some other way than the page's (issue 36, item 3).

A finished game is in the record however the command ends: Ctrl-C (SIGINT) or the terminal
closing (SIGHUP) at the end screen leave as the page's Enter does, the result printed and no
traceback; the last tab closed and the process killed (SIGKILL, nothing of it runs after)
loses nothing either, since the game was recorded the moment it ended. Ctrl-C in the middle of
a game leaves it as ``q`` does: not in the record, and ``play --resume --web`` opens it again.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser import chrome
from tests.test_web_play import PATIENCE, Web, changed, click, enabled, environment, until, version, view

pytestmark = [pytest.mark.slow, pytest.mark.browser]
__all__ = ["chrome"]  # the fixture, taken by name below

# One hand at pace 0: the game's end comes within a few dozen of the user's moves.
GAME = ["play", "--name", "Ann", "--bots", "2", "--seed", "5", "-o", "hands=1", "--pace", "0"]


def play_by_hints(driver: Any) -> dict[str, Any]:
    """Play the user's seat by the hint's key (p), answering its questions, to the game's end
    screen; returns its view."""
    deadline = time.monotonic() + 20 * PATIENCE
    seen, since = -1, time.monotonic()
    while True:
        assert time.monotonic() < deadline, "the game did not end"
        v = until(driver, lambda: view(driver), "the table")
        if v.get("screen") == "over":
            return v
        before = version(driver)
        if before != seen:
            seen, since = before, time.monotonic()
        assert time.monotonic() - since < PATIENCE, f"the table stopped; the view:\n{json.dumps(v)}"
        if v.get("prompt"):
            keys = [c["key"] for c in v["prompt"]["choices"]]
            index = 0 if keys == ["y", "n"] else v["prompt"]["index"]  # (a Wild to discard: yes)
            clicked = click(driver, f'.prompt .choice[data-index="{index}"]')
        elif v.get("screen") == "hand":
            clicked = click(driver, '.keys [data-key="Enter"]')
        elif v.get("screen") == "table" and enabled(v, "p"):
            clicked = click(driver, '.keys [data-key="p"]')
        else:
            clicked = False
        if clicked:
            changed(driver, before)
        else:  # the bots' turn, or the page between two views: look again
            time.sleep(0.05)


def at_the_end(driver: Any, web: Web) -> None:
    """Open the page of ``web`` and play to the end screen."""
    driver.get(web.url)
    over = play_by_hints(driver)
    assert over["screen"] == "over"


def ended_by(web: Web, signum: int) -> tuple[int, str, str]:
    """Send ``signum`` to the command; its exit status, output and errors."""
    web.proc.send_signal(signum)
    out, err = web.finish()
    return web.proc.returncode, out, err


def record_of(env: dict[str, str], cwd: Path) -> dict[str, Any]:
    """``p2p10 stats --json`` in ``env``: the record."""
    done = subprocess.run([sys.executable, "-m", "cli", "stats", "--json"], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=PATIENCE, check=True)
    record: dict[str, Any] = json.loads(done.stdout)
    return record


def saved_lists(env: dict[str, str], cwd: Path) -> tuple[list[str], list[str]]:
    """The logs the start screen lists: the unfinished games, the recent finished ones."""
    script = ("import json; from cli.play_cmd import start_lists; u, r, _ = start_lists(); "
              "print(json.dumps([[str(g.path) for g in u], [str(g.path) for g in r]]))")
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=PATIENCE, check=True)
    unfinished, recent = json.loads(done.stdout)
    return unfinished, recent


def the_log(tmp_path: Path) -> str:
    """The one game log the command saved under ``tmp_path``."""
    logs = list((tmp_path / "data").rglob("*.p2p10"))
    assert len(logs) == 1, logs
    return str(logs[0].absolute())


def recorded(env: dict[str, str], tmp_path: Path) -> None:
    """The game saved under ``tmp_path`` is in the record, once, and among the start screen's
    recent games, not its unfinished ones."""
    log = the_log(tmp_path)
    record = record_of(env, tmp_path)
    assert [game["log_path"] for game in record["latest"]] == [log], record
    unfinished, recent = saved_lists(env, tmp_path)
    assert (unfinished, recent) == ([], [log])


@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGHUP], ids=["ctrl-c", "terminal-closed"])
def test_a_signal_at_the_end_screen_prints_and_records_the_game(chrome: Any, tmp_path: Path,
                                                                sent: signal.Signals) -> None:
    """Ctrl-C, or the terminal closing, at the end screen: as leaving by the page's Enter (and
    as p2p10 watch's Ctrl-C), exit 0, the result printed once, the game recorded."""
    env = environment(tmp_path)
    web = Web(GAME, env, tmp_path)
    try:
        at_the_end(chrome, web)
        status, out, err = ended_by(web, sent)
    finally:
        web.stop()
    assert "Traceback" not in err, err
    assert status == 0, err
    assert out.count("won the game.") == 1, out
    assert "p2p10 audit" in out, out
    recorded(env, tmp_path)


def test_a_game_is_recorded_when_it_ends_not_only_when_it_is_left(chrome: Any, tmp_path: Path) -> None:
    """The last tab closed at the end screen, then the process killed with no chance to do
    anything: the game was recorded as it ended."""
    env = environment(tmp_path)
    web = Web(GAME, env, tmp_path)
    try:
        at_the_end(chrome, web)
        chrome.get("about:blank")  # the page's one tab leaves it
        time.sleep(1.0)
        assert web.proc.poll() is None  # (the command waits for the page to come back)
        status, out, _err = ended_by(web, signal.SIGKILL)
    finally:
        web.stop()
    assert status == -signal.SIGKILL
    assert "won the game." not in out  # (said on leaving only: there was none)
    recorded(env, tmp_path)


def test_ctrl_c_mid_game_leaves_it_resumable(chrome: Any, tmp_path: Path) -> None:
    env = environment(tmp_path)
    web = Web(GAME, env, tmp_path)
    try:
        chrome.get(web.url)
        until(chrome, lambda: (v := view(chrome)) and enabled(v, "d"), "the user's turn")
        status, out, err = ended_by(web, signal.SIGINT)
    finally:
        web.stop()
    assert "Traceback" not in err, err
    assert status == 0, err
    assert "won the game." not in out and "p2p10 play --resume" in out, out
    log = the_log(tmp_path)
    assert record_of(env, tmp_path)["latest"] == []
    assert saved_lists(env, tmp_path) == ([log], [])
    again = Web(["play", "--resume"], env, tmp_path)
    try:
        chrome.get(again.url)
        v = until(chrome, lambda: (v := view(chrome)) and v.get("page") == "table" and v.get("hand") and v,
                  "the resumed table")
        assert v["screen"] != "over"
    finally:
        again.stop()
