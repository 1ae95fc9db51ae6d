"""``p2p10 play --web`` in a real browser: headless Chromium, driven from outside the project.

A whole game is played by clicks (the draw pile, the lay-down key, the answers to the table's
questions, a double-click or a drag to discard) to the winner's screen, and the log it saved
audits clean; a game left in the browser is resumed with ``--resume --web`` at the same hand;
the German and Spanish pages carry no English; a page opened without the key shows nothing of
the seat. Screenshots at a phone's and a desktop's size are kept under the test's temporary
folder (``shots/``) for a person to look at.
"""

from __future__ import annotations

import getpass
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
        self.proc = subprocess.Popen([sys.executable, "-m", "cli", *args, "--web", "--no-browser"],
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


def press(driver: Any, css: str) -> None:
    """Click ``css`` as soon as it is there and enabled (the page may be between two views)."""
    until(driver, lambda: click(driver, css), f"{css} to click")


def changed(driver: Any, before: int) -> None:
    until(driver, lambda: version(driver) > before, "the page to change")


def showing(driver: Any, page: str) -> dict[str, Any] | None:
    """The view drawn last if it is of ``page`` ("start", "table")."""
    v = view(driver)
    return v if v is not None and v.get("page") == page else None


def enabled(v: dict[str, Any], key: str) -> bool:
    return any(k["key"] == key and k["enabled"] for k in v.get("keys") or [])


def play_by_clicks(driver: Any, tmp_path: Path, drag_once: bool = True) -> dict[str, Any]:
    """Play the user's seat by clicks until the game's end screen; returns its view."""
    laid_tried: set[int] = set()
    dragged = not drag_once
    shots = 0
    hits = 0
    turn = 0  # the user's turns so far (one draw each)
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
            press(driver, f'.prompt .choice[data-index="{index}"]')
        elif v.get("screen") == "hand":  # a hand's summary: Enter is a button too
            if not click(driver, '.dialog-actions [data-key="Enter"]'):
                # The summary gave way to the next hand's turn between reading the view and the
                # click (the bots played on): look again.
                time.sleep(0.05)
                continue
        elif v.get("screen") != "table":
            assert click(driver, '.dialog-actions [data-key="Enter"]')
        elif enabled(v, "d"):
            turn += 1
            if shots < 1:
                shots += 1
                phone(driver)
                shot(driver, tmp_path, "play-phone")
                desktop(driver)
                shot(driver, tmp_path, "play-desktop")
            assert click(driver, '[data-pile="draw"]')
        elif enabled(v, "x"):
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


def resize(driver: Any, size: Callable[[Any], None], relaid: bool = True) -> None:
    """Show the page at another size, and wait for the table to lay its text out again (with
    ``relaid``: a page with no text laid out by the table, the start screen, only resizes)."""
    before = version(driver)
    size(driver)
    driver.execute_script("window.dispatchEvent(new Event('resize'))")
    if relaid:
        changed(driver, before)
    else:
        time.sleep(0.5)  # (nothing on the page says it has been drawn at the new size)


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
    web = Web(["play", "--name", "Ann", "--bots", "2", "--seed", "5", "-o", "hands=2", "--pace", "0"],
              environment(tmp_path), tmp_path)
    try:
        desktop(chrome)
        chrome.get(web.url)
        first = until(chrome, lambda: view(chrome), "the first view")
        assert first["page"] == "table"
        until(chrome, lambda: (v := view(chrome)) and (v.get("hand") or {}).get("cards"), "the hand")
        # Every card of the hand has its name, for a reader and for this test (the labels and
        # the view read at one moment: the page takes the table's changes as they come).
        labels, drawn = chrome.execute_script(
            "return [Array.from(document.querySelectorAll('.hand .card-button [role=img]'))"
            ".map(e => e.getAttribute('aria-label')), P2P10.view()];")
        assert labels == [c["card"]["words"] for c in drawn["hand"]["cards"]] and labels
        assert all(re.fullmatch(r"(red|blue|green|yellow) \d+|Wild|Skip", label) for label in labels)
        # The key left the address bar.
        assert "#t=" not in chrome.current_url
        over = play_by_clicks(chrome, tmp_path)
        shot(chrome, tmp_path, "over-desktop")
        resize(chrome, phone)
        shot(chrome, tmp_path, "over-phone")
        resize(chrome, desktop)
        side = over["side"]["data"]
        assert side["title"].startswith("Game over") and "The game's log" in side["notes"][0]["text"], side
        assert side["sheet"]["totals"] == over["sheet"]["totals"]
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


def visible_words(driver: Any) -> str:
    """What a reader sees and hears of the page: its text and its names (aria-label, title),
    less the players' names."""
    return str(driver.execute_script("""
        const labels = Array.from(document.querySelectorAll('[aria-label], [title]')).map(
            e => (e.getAttribute('aria-label') || '') + ' ' + (e.getAttribute('title') || ''));
        return document.body.innerText + '\\n' + labels.join('\\n');"""))


def english_left(driver: Any, lang: str, names: tuple[str, ...]) -> set[str]:
    """The English words on the page that the language ``lang`` never uses (as the terminal's
    sweep reads its screens)."""
    from tests.test_screen_sweep import ALLOWED, LETTERS, NOT_WORDS, vocabulary

    ours, english = vocabulary(lang)
    english_only = english - ours - ALLOWED
    text = visible_words(driver)
    for name in names:
        text = text.replace(name, " ")
    return {word for word in LETTERS.findall(NOT_WORDS.sub(" ", text))
            if len(word) > 1 and word.lower() in english_only}


@pytest.mark.parametrize("lang", ["de", "es"])
def test_the_german_and_spanish_pages_leave_no_english(chrome: Any, tmp_path: Path, lang: str) -> None:
    """``--lang de`` (``es``): the start screen, the table with a question asked, the rules,
    the help and the score sheet, in that language only."""
    web = Web(["--lang", lang, "play", "--pace", "0"], environment(tmp_path, None), tmp_path)
    names = (getpass.getuser(), "You", "Bot 1", "Bot 2", "Bot 3", "p2p10", "Phase 10")
    found: dict[str, set[str]] = {}
    try:
        desktop(chrome)
        chrome.get(web.url)
        start = until(chrome, lambda: showing(chrome, "start"), "the start screen")
        assert start["lang"] == lang
        found["start"] = english_left(chrome, lang, names)
        shot(chrome, tmp_path, f"{lang}-start-desktop")
        resize(chrome, phone, relaid=False)
        shot(chrome, tmp_path, f"{lang}-start-phone")
        resize(chrome, desktop, relaid=False)
        before = version(chrome)
        assert click(chrome, '.menu-row[data-row="start"] .row-button')  # a new game
        changed(chrome, before)
        until(chrome, lambda: (v := view(chrome)) and v.get("page") == "table" and v.get("hand"), "the table")
        found["table"] = english_left(chrome, lang, names)
        for key in ("r", "?", "s", "q"):  # rules, help, the score sheet; the quit question
            before = version(chrome)
            chrome.execute_script("document.body.dispatchEvent(new KeyboardEvent('keydown', "
                                  "{key: arguments[0], bubbles: true}))", key)
            changed(chrome, before)
            found[key] = english_left(chrome, lang, names)
            if key != "q":
                shot(chrome, tmp_path, f"{lang}-{key}")
                before = version(chrome)
                chrome.execute_script("document.body.dispatchEvent(new KeyboardEvent('keydown', "
                                      "{key: 'Escape', bubbles: true}))")
                changed(chrome, before)
        resize(chrome, phone)
        shot(chrome, tmp_path, f"{lang}-table-phone")
    finally:
        web.stop()
    assert not any(found.values()), {k: sorted(v) for k, v in found.items() if v}


def test_the_browsers_language_when_none_is_named(chrome: Any, tmp_path: Path) -> None:
    """No --lang and no language in the environment: the page speaks the browser's."""
    chrome.execute_cdp_cmd("Emulation.setLocaleOverride", {"locale": "es-ES"})
    chrome.execute_cdp_cmd("Network.setUserAgentOverride", {
        "userAgent": chrome.execute_script("return navigator.userAgent"), "acceptLanguage": "es-ES,es"})
    web = Web(["play"], environment(tmp_path, None), tmp_path)
    try:
        chrome.get(web.url)
        start = until(chrome, lambda: showing(chrome, "start"), "the start screen")
        assert start["lang"] == "es", chrome.execute_script("return navigator.languages")
        assert "Nueva partida" in page_text(chrome) or "partida" in page_text(chrome)
    finally:
        web.stop()


def test_without_the_key_the_page_shows_nothing_of_the_seat(chrome: Any, tmp_path: Path) -> None:
    """The address without its key, or with another, opens no table: the page says why, and
    neither it nor the socket's answer holds a name or a card."""
    import urllib.error
    import urllib.request

    web = Web(["play", "--name", "Zelda", "--bots", "2", "--seed", "5", "-o", "hands=1"],
              environment(tmp_path), tmp_path)
    try:
        base = web.url.split("#")[0]
        for url in (base, base + "#t=" + "A" * 43):
            chrome.get(url)
            until(chrome, lambda: "p2p10" in page_text(chrome) and view(chrome) is None
                  and chrome.find_elements("css selector", ".notice"), "the refusal")
            text = page_text(chrome)
            assert "#t=" in text and "Zelda" not in text and not chrome.find_elements("css selector", ".hand")
        # The socket itself, asked without the key, from another site, or with a wrong key.
        port = base.split(":")[2].rstrip("/")
        token = web.url.split("#t=")[1]
        for path, origin in ((f"/ws?t={token}", "http://evil.example"), ("/ws", base.rstrip("/")),
                             ("/ws?t=" + "B" * 43, base.rstrip("/"))):
            request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={
                "Origin": origin, "Connection": "Upgrade", "Upgrade": "websocket",
                "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=10)
            assert refused.value.code == 403
            body = refused.value.read().decode()
            assert "Zelda" not in body and "Bot" not in body and len(body) < 40
    finally:
        web.stop()


def test_a_game_left_in_the_browser_is_resumed_in_it_at_the_same_hand(chrome: Any, tmp_path: Path) -> None:
    """q then yes leaves a game under way; ``play --resume --web`` opens it again at its hand."""
    env = environment(tmp_path)
    web = Web(["play", "--name", "Ann", "--bots", "2", "--seed", "5", "-o", "hands=3", "--pace", "0"],
              env, tmp_path)
    try:
        chrome.get(web.url)
        v = until(chrome, lambda: (v := view(chrome)) and enabled(v, "d") and v, "the user's turn")
        before = version(chrome)
        assert click(chrome, '.keys [data-key="q"]')
        changed(chrome, before)
        question = view(chrome)
        assert question is not None and question["prompt"] is not None
        hand_before = question["title"].split()[1]
        seen = sorted(c["card"]["text"] for c in question["hand"]["cards"])
        assert click(chrome, '.prompt .choice[data-key="y"]')
        out, err = web.finish()
    finally:
        web.stop()
    assert web.proc.returncode == 0, err
    assert "p2p10 play --resume" in out, out
    again = Web(["play", "--resume"], env, tmp_path)
    try:
        chrome.get(again.url)
        v = until(chrome, lambda: (v := view(chrome)) and v.get("page") == "table" and v.get("hand") and v,
                  "the resumed table")
        assert v["title"].split()[1] == hand_before
        assert sorted(c["card"]["text"] for c in v["hand"]["cards"]) == seen
        assert any("Hand 1" in line["text"] for line in v["log"])  # the story so far, told again
    finally:
        again.stop()
