"""One whole game of ``p2p10 play`` in a real terminal (tmux, 80x24), typed key by key.

The test reads the screen as a person would (``tmux capture-pane``) and answers it with keys
(``tmux send-keys``) until the end-of-game screen, leaves, and audits the log the command saved.
"""

from __future__ import annotations

import gettext
import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from p2p10.i18n import LOCALE_DIR

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


class Words:
    """The program's words in one language, from its compiled catalogue, as patterns to find
    on a screen: a test that reads the screen through them reads it in that language."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.catalogue = gettext.translation("p2p10", LOCALE_DIR, languages=[lang], fallback=lang == "en")

    def text(self, message: str, context: str | None = None) -> str:
        if context is None:
            return self.catalogue.gettext(message)
        return self.catalogue.pgettext(context, message)

    def pattern(self, message: str, context: str | None = None) -> re.Pattern[str]:
        """The translation with each ``{placeholder}`` matching anything on one line."""
        pieces = re.split(r"\{[a-z_]*\}", self.text(message, context))
        return re.compile(".+?".join(re.escape(piece) for piece in pieces))

    def key(self, screen: str, key: str, label: str) -> bool:
        """Whether the keys at the bottom offer ``key`` with its ``label`` (a "key" word)."""
        return re.search(re.escape(key) + r" +" + re.escape(self.text(label, "key")), screen) is not None

    def seen(self, screen: str, *messages: str | tuple[str, str]) -> bool:
        """Whether the screen shows any of ``messages`` (a tuple is ``(context, message)``)."""
        for message in messages:
            context, text = message if isinstance(message, tuple) else (None, message)
            if self.pattern(text, context).search(screen):
                return True
        return False


MY_DRAW = ("Your turn: draw a card (d or t)", ("title", "Your turn: d or t"))
MY_PLAY = ("Your turn: play, then discard (x)", ("title", "Your turn: x discards"))
START = ("Start a new game",)
CARD_ROW = re.compile(r"[│┃] ?([RBGY]\d{1,2}|W|S) ?[│┃]")


def hand_cards(screen: str) -> list[str]:
    """The user's hand as drawn: the faces of the framed cards, left to right."""
    rows = [line for line in screen.splitlines() if len(CARD_ROW.findall(line)) >= 5]
    return CARD_ROW.findall(rows[-1]) if rows else []


def play_keys(tmux: Tmux, words: Words, screen: str, plan: list[str]) -> str | None:
    """The next key of a simple player: draw, lay down, hit, discard; the first answer to any
    question; Enter between hands. None when the screen asks nothing of the user now."""
    title = screen.splitlines()[0] if screen.strip() else ""
    if words.key(screen, "Esc", "cancel"):  # a question: its first answer
        return "Enter"
    if words.key(screen, "Enter", "next hand"):
        return "Enter"
    if words.seen(title, *MY_DRAW):
        plan[:] = ["l", "h", "x"]
        return "d"
    if words.seen(title, *MY_PLAY):
        if not plan:  # the card under the cursor was kept (a Wild): try the next one
            plan[:] = ["Right", "x"]
        return plan.pop(0)
    return None


LOCALES = {"en": "en_US.UTF-8", "de": "de_DE.UTF-8", "es": "es_ES.UTF-8"}


@pytest.mark.parametrize("lang", ["en", "de", "es"])
def test_start_screen_quit_resume_finish_play_again_and_the_record_in_each_language(
        tmp_path: Path, lang: str) -> None:
    """What a new user does, in tmux at 80x24, in their language (from ``LANG``): the start
    screen, a quick game against two hard bots, quit mid-hand, ``--resume`` to the same hand,
    play to the end, play again, leave; then read the result and the record."""
    words = Words(lang)
    data = tmp_path / "data"
    python = f"{sys.executable} -m cli"
    go = tmp_path / "go"  # the second command waits for it: the test reads the first one's words
    command = (f"cd {ROOT} && export XDG_DATA_HOME={data} XDG_CONFIG_HOME={tmp_path / 'config'} "
               "LANGUAGE= LC_ALL= LC_MESSAGES= "
               f"LANG={LOCALES[lang]}; {python} play --pace 0; echo FIRST=$?; "
               f"while [ ! -e {go} ]; do sleep 0.1; done; "
               f"{python} play --resume --pace 0; echo SECOND=$?; {python} stats; echo STATS=$?; sleep 60")
    tmux = Tmux(command)
    try:
        screen = wait_until_still(tmux, tmux.screen())
        deadline = time.monotonic() + 20
        while not words.seen(screen, *START):
            assert time.monotonic() < deadline, f"no start screen:\n{screen}"
            screen = wait_for_change(tmux, screen, 0.5)
        # two bots (3 less one), hard, the quick game, one hand only (typed), then start
        for key in ["Down", "Left", "Down", "Right", "Down", "Right", "Down", "Enter"]:
            tmux.keys(key)
        tmux.run("send-keys", "-t", "game", "-l", " hands=1")
        tmux.keys("Enter")
        screen = wait_for_change(tmux, screen)
        assert "phases=even hands=1" in screen, screen
        tmux.keys("n")

        # play until the user has drawn (eleven cards), then quit mid-hand
        plan: list[str] = []
        deadline = time.monotonic() + 60
        screen = wait_for_change(tmux, screen)
        while not words.seen(screen.splitlines()[0] if screen.strip() else "", *MY_PLAY):
            assert time.monotonic() < deadline, f"never the user's turn to play:\n{screen}"
            assert "Traceback" not in screen, screen
            # The bots may skip the user and go out before the user's first turn: then play again.
            key = "n" if words.key(screen, "n", "play again") else play_keys(tmux, words, screen, plan)
            if key is None:
                screen = wait_for_change(tmux, screen, 0.5)
                continue
            tmux.keys(key)
            screen = wait_for_change(tmux, screen)
        before = hand_cards(screen)
        assert len(before) == 11, screen
        if lang != "en":  # the table speaks the language, not English
            assert words.text("Draw pile") in screen and "Draw pile" not in screen, screen
        tmux.keys("q")
        quitting = wait_for_change(tmux, screen)
        assert quitting != screen, f"q asked nothing:\n{screen}"
        tmux.keys("y")
        # the game was opened from the start screen: leaving it comes back there, with the
        # settings just played; q there leaves to the shell
        screen = quitting
        deadline = time.monotonic() + 30
        while not words.seen(screen, *START):
            assert time.monotonic() < deadline, f"no start screen after the game:\n{screen}"
            screen = wait_for_change(tmux, screen, 0.5)
        assert "phases=even hands=1" in screen, screen
        tmux.keys("q")
        deadline = time.monotonic() + 30
        while "FIRST=" not in screen:
            assert time.monotonic() < deadline, screen
            screen = wait_for_change(tmux, screen, 0.5)
        assert "FIRST=0" in screen and "p2p10 play --resume" in screen, screen
        go.touch()

        # --resume: the same hand, the same cards, the user still to discard
        deadline = time.monotonic() + 60
        while not words.seen(screen.splitlines()[0] if screen.strip() else "", *MY_PLAY):
            assert time.monotonic() < deadline, f"the game did not come back:\n{screen}"
            screen = wait_for_change(tmux, screen, 0.5)
        assert sorted(hand_cards(screen)) == sorted(before), screen

        # to the end, then play again, then leave the new game
        plan = ["Right", "x"]
        deadline = time.monotonic() + 120
        while not words.key(screen, "n", "play again"):
            assert time.monotonic() < deadline, f"the game did not end:\n{screen}"
            assert "Traceback" not in screen, screen
            key = play_keys(tmux, words, screen, plan)
            if key is None:
                screen = wait_for_change(tmux, screen, 0.5)
                continue
            tmux.keys(key)
            screen = wait_for_change(tmux, screen)
        over = screen
        tmux.keys("n")
        deadline = time.monotonic() + 60
        screen = wait_for_change(tmux, over)
        # The new game's table (or its end, if quick): drawn, with its keys at the bottom. Not
        # just any other screen: between the two games the terminal shows the first one's
        # result, and keys typed then do not reach the new game (it switches the terminal
        # to raw input as it starts).
        while screen == over or not words.key(screen, "q", "quit"):
            assert time.monotonic() < deadline, screen
            screen = wait_for_change(tmux, screen, 0.5)
        tmux.keys("q")
        screen = wait_for_change(tmux, screen)
        tmux.keys("y")  # a game under way asks first (a finished one does not, and y goes nowhere)
        deadline = time.monotonic() + 30
        while "STATS=" not in screen:
            assert time.monotonic() < deadline, screen
            screen = wait_for_change(tmux, screen, 0.5)
        text = tmux.run("capture-pane", "-p", "-t", "game", "-S", "-200")
    finally:
        tmux.close()
    assert "SECOND=0" in text and "STATS=0" in text, text
    assert words.pattern("{name} won the game.").search(text), text
    logs = sorted((data / "p2p10" / "games").glob("*.p2p10"))
    assert len(logs) >= 2  # the finished game and the one played again
    record = json.loads((data / "p2p10" / "record.json").read_text())
    # the finished games (the bots may finish a one-hand game before the user has a turn)
    finished_logs = [g["log_path"] for g in record["games"]]
    assert 1 <= len(finished_logs) <= len(logs) and set(finished_logs) <= {str(p) for p in logs}, record
    finished = record["games"][0]["log_path"]
    audit = subprocess.run([sys.executable, "-m", "cli", "audit", finished], capture_output=True,
                           text=True, timeout=60, cwd=ROOT, env={**os.environ, "NO_COLOR": "1"})
    assert audit.returncode == 0, audit.stdout + audit.stderr
