"""One whole game of ``p2p10 play`` in a real terminal (tmux, 80x24), typed key by key.

The test reads the screen as a person would (``tmux capture-pane``) and answers it with keys
(``tmux send-keys``) until the end-of-game screen, leaves, and audits the log the command saved.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None,
                                reason="tmux is not installed: the end-to-end terminal game needs it")

ROOT = Path(__file__).resolve().parent.parent


class Tmux:
    """A tmux server of its own (so nothing else is touched) with one 80x24 window."""

    def __init__(self, command: str) -> None:
        self.socket = f"p2p10-test-{uuid.uuid4().hex[:8]}"
        self.run("new-session", "-d", "-x", "80", "-y", "24", "-s", "game", command)

    def run(self, *args: str) -> str:
        result = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True,
                                timeout=10, check=True)
        return result.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "game")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "game", *keys)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=10)


def wait_for_change(tmux: Tmux, before: str, seconds: float = 5.0) -> str:
    """The screen once it has changed and then held still for a moment: a screen caught half
    redrawn could show the old question with the new one and be answered twice."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = tmux.screen()
        if now != before:
            return wait_until_still(tmux, now)
    return before


def wait_until_still(tmux: Tmux, screen: str, still: float = 0.25, seconds: float = 3.0) -> str:
    deadline = time.monotonic() + seconds
    steady_since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = tmux.screen()
        if now != screen:
            screen, steady_since = now, time.monotonic()
        elif time.monotonic() - steady_since >= still:
            break
    return screen


def test_a_whole_game_typed_in_tmux_ends_with_an_audited_log(tmp_path: Path) -> None:
    data = tmp_path / "data"
    command = (f"cd {ROOT} && XDG_DATA_HOME={data} {sys.executable} -m p2p10 play --bots 1 --seed 11 "
               f"-o hands=1 --pace 0; echo EXIT=$?; sleep 60")
    tmux = Tmux(command)
    seen_table = seen_end = False
    started = time.monotonic()
    try:
        plan: list[str] = []  # the keys still to try in this turn's play stage
        screen = tmux.screen()
        while "EXIT=" not in screen:
            assert time.monotonic() - started < 60, f"the game did not end; the screen:\n{screen}"
            title = screen.splitlines()[0] if screen.strip() else ""
            if "Traceback" in screen:
                pytest.fail(f"a traceback on the screen:\n{screen}")
            if "Game over:" in screen and "Your turn" not in title:
                seen_end = True
                assert "Score sheet" in screen or "Total" in screen, screen
                key = "Enter"
            elif "Skip whom?" in screen:
                key = "1"
            elif any(ask in screen for ask in ("on which meld?", "Which end", "Lay down which?", "is over:")):
                key = "Enter"  # the first choice; or on to the next hand
            elif "Your turn: draw" in title:
                seen_table = True
                assert "Draw pile" in screen and "Moves" in screen, screen
                plan = ["l", "h", "x"]
                key = "d"
            elif "Your turn: play" in title and plan:
                key = plan.pop(0)
            else:
                screen = wait_for_change(tmux, screen, 0.5)
                continue
            tmux.keys(key)
            screen = wait_for_change(tmux, screen)
        assert seen_table and seen_end
        assert "EXIT=0" in screen and "p2p10 audit" in screen, screen
    finally:
        tmux.close()
    logs = list((data / "p2p10" / "games").glob("*.p2p10"))
    assert len(logs) == 1
    audit = subprocess.run([sys.executable, "-m", "p2p10", "audit", str(logs[0])], capture_output=True,
                           text=True, timeout=60, cwd=ROOT, env={**os.environ, "NO_COLOR": "1"})
    assert audit.returncode == 0, audit.stdout + audit.stderr
