"""``p2p10 play --web`` in a real browser: headless Chromium, driven from outside the project.

A whole game is played by clicks (the draw pile, the lay-down key, the answers to the table's
questions, a double-click or a drag to discard) to the winner's screen, and the log it saved
audits clean; a game left in the browser is resumed with ``--resume --web`` at the same hand;
the German and Spanish pages carry no English; a page opened without the key shows nothing of
the seat. Screenshots at a phone's and a desktop's size are kept under the test's temporary
folder (``shots/``) for a person to look at.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from p2p10.audit import audit_bytes
from tests.browser import desktop, phone, shot, start_chrome

pytestmark = [pytest.mark.slow, pytest.mark.browser]

PATIENCE = 120.0  # s: how long a page may take to show what it must before the test gives up


def environment(home: Path, lang: str | None = "en") -> dict[str, str]:
    """The command's environment: its files under ``home``, the language ``lang`` (None: none
    named, so that the browser's counts)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"),
               XDG_STATE_HOME=str(home / "state"), PYTHONUNBUFFERED="1")
    if lang is not None:
        env["LANGUAGE"] = lang
    return env


class Web:
    """``p2p10 play --web --no-browser`` running, its address read from its first line."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "p2p10", *args, "--web", "--no-browser"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=env, cwd=cwd)
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/#t=[A-Za-z0-9_-]{20,}", self.url), self.url

    def finish(self) -> tuple[str, str]:
        out, err = self.proc.communicate(timeout=PATIENCE)
        return out, err

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.communicate(timeout=PATIENCE)


@pytest.fixture
def chrome() -> Iterator[Any]:
    driver = start_chrome()
    try:
        yield driver
    finally:
        driver.quit()


def view(driver: Any) -> dict[str, Any] | None:
    """The view the page drew last (None before the first)."""
    result: dict[str, Any] | None = driver.execute_script("return window.P2P10 && P2P10.view && P2P10.view()")
    return result


def until(driver: Any, condition: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + PATIENCE
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}; the page:\n{page_text(driver)}"
        time.sleep(0.05)


def page_text(driver: Any) -> str:
    return str(driver.execute_script("return document.body.innerText"))


def version(driver: Any) -> int:
    return int(driver.execute_script("return Number(document.body.getAttribute('data-version') || 0)"))


def click(driver: Any, css: str) -> bool:
    """Click the first element matching ``css`` that is there and enabled; False if none is."""
    done = driver.execute_script(
        "var e = document.querySelector(arguments[0]); if (!e || e.disabled) return false;"
        "e.scrollIntoView({block: 'center'}); e.click(); return true;", css)
    return bool(done)


def changed(driver: Any, before: int) -> None:
    until(driver, lambda: version(driver) > before, "the page to change")


def enabled(v: dict[str, Any], key: str) -> bool:
    return any(k["key"] == key and k["enabled"] for k in v.get("keys") or [])


def play_by_clicks(driver: Any, tmp_path: Path, drag_once: bool = True) -> dict[str, Any]:
    """Play the user's seat by clicks until the game's end screen; returns its view."""
    laid_tried: set[int] = set()
    dragged = not drag_once
    shots = 0
    hits = 0
    deadline = time.monotonic() + 20 * PATIENCE
    while True:
        assert time.monotonic() < deadline, f"the game did not end; the page:\n{page_text(driver)}"
        v = until(driver, lambda: view(driver), "the table")
        if os.environ.get("P2P10_DEBUG"):
            lit = [k["key"] for k in v["keys"] if k["enabled"]]
            print(v.get("screen"), v.get("title"), lit, v.get("prompt"), v.get("status"), flush=True)
        if v.get("screen") == "over":
            return v
        before = version(driver)
        if v.get("prompt"):
            keys = [c["key"] for c in v["prompt"]["choices"]]
            # A yes-or-no question (a Wild to discard): yes; else the answer the table proposes.
            index = 0 if keys == ["y", "n"] else v["prompt"]["index"]
            assert click(driver, f'.prompt .choice[data-index="{index}"]')
        elif v.get("screen") == "hand":  # a hand's summary: Enter is a button too
            assert click(driver, '.keys [data-key="Enter"]')
        elif v.get("screen") != "table":
            assert click(driver, '.keys [data-key="Esc"], .keys [data-key="Enter"]')
        elif enabled(v, "d"):
            if shots < 1:
                shots += 1
                phone(driver)
                shot(driver, tmp_path, "play-phone")
                desktop(driver)
                shot(driver, tmp_path, "play-desktop")
            assert click(driver, '[data-pile="draw"]')
        elif enabled(v, "x"):
            turn = len(v["log"])
            if enabled(v, "l") and turn not in laid_tried and not _down(v):
                laid_tried.add(turn)
                assert click(driver, '.keys [data-key="l"]')
            elif enabled(v, "h") and hits < 3:  # a card fits a meld: the hint plays it (a click too)
                hits += 1
                assert click(driver, '.keys [data-key="p"]')
            else:
                hits = 0
                assert click(driver, '.keys [data-key="i"]')  # the hint puts the cursor on its card
                changed(driver, before)
                before = version(driver)
                slot = driver.execute_script("var e = document.querySelector('.slot.cursor');"
                                             "return e && e.getAttribute('data-slot');")
                assert slot is not None, page_text(driver)
                if not dragged:
                    dragged = True
                    drag_to_discard(driver, slot)
                else:
                    driver.execute_script(
                        "document.querySelector('.slot[data-slot=\"' + arguments[0] + '\"] .card-button')"
                        ".dispatchEvent(new MouseEvent('dblclick', {bubbles: true}));", slot)
        else:
            time.sleep(0.05)
            continue
        changed(driver, before)


def resize(driver: Any, size: Callable[[Any], None]) -> None:
    """Show the page at another size, and wait for the table to lay its text out again."""
    before = version(driver)
    size(driver)
    driver.execute_script("window.dispatchEvent(new Event('resize'))")
    changed(driver, before)


def _down(v: dict[str, Any]) -> bool:
    return any(seat["me"] and seat["down"] for seat in v["seats"])


def drag_to_discard(driver: Any, slot: str) -> None:
    """Drag the hand's card in ``slot`` onto the discard pile, as a mouse does (HTML drag and
    drop events, with a DataTransfer)."""
    driver.execute_script("""
        var card = document.querySelector('.slot[data-slot="' + arguments[0] + '"] .card-button');
        var pile = document.querySelector('[data-pile="discard"]');
        var data = new DataTransfer();
        card.dispatchEvent(new DragEvent('dragstart', {bubbles: true, dataTransfer: data}));
        pile.dispatchEvent(new DragEvent('dragover', {bubbles: true, cancelable: true, dataTransfer: data}));
        pile.dispatchEvent(new DragEvent('drop', {bubbles: true, cancelable: true, dataTransfer: data}));
    """, slot)


def test_a_whole_game_by_clicks_to_the_winners_screen_and_a_clean_log(chrome: Any, tmp_path: Path) -> None:
    web = Web(["play", "--name", "Ann", "--bots", "2", "--seed", "5", "-o", "hands=1", "--pace", "0"],
              environment(tmp_path), tmp_path)
    try:
        desktop(chrome)
        chrome.get(web.url)
        first = until(chrome, lambda: view(chrome), "the first view")
        assert first["page"] == "table"
        # Every card of the hand has its name, for a reader and for this test.
        labels = chrome.execute_script("return Array.from(document.querySelectorAll('.hand .card-button'))"
                                       ".map(e => e.getAttribute('aria-label'))")
        hand = [c["card"]["words"] for c in first["hand"]["cards"]] if first.get("hand") else []
        assert labels == hand
        assert all(re.fullmatch(r"(red|blue|green|yellow) \d+|Wild|Skip", label) for label in labels)
        # The key left the address bar.
        assert "#t=" not in chrome.current_url
        over = play_by_clicks(chrome, tmp_path)
        shot(chrome, tmp_path, "over-desktop")
        resize(chrome, phone)
        shot(chrome, tmp_path, "over-phone")
        resize(chrome, desktop)
        panel = "\n".join("".join(part["text"] for part in line) for line in over["panel"])
        assert "Game over" in panel and "The game's log" in panel, panel
        totals = over["sheet"]["totals"]
        assert click(chrome, '.keys [data-key="Enter"]')  # leave
        out, err = web.finish()
    finally:
        web.stop()
    assert web.proc.returncode == 0, err
    assert "Traceback" not in err, err
    assert "won the game." in out, out
    # The command prints the scores as the terminal's play does: the page's totals.
    points = [int(n) for n in re.findall(r"(\d+) points?$", out, re.M)]
    assert points == [int(t) for t in totals], (out, totals)
    log = Path(re.search(r"p2p10 audit (.+\.p2p10)$", out, re.M).group(1))  # type: ignore[union-attr]
    report = audit_bytes(log.read_bytes())
    assert report.clean, report.verdict()
