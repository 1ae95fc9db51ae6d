"""A whole game played in a phone's page with nothing but the page: the seat model and the
table's drawing (the same ``cli.seat`` and ``TableScreen`` the machine's browser table runs) in
the page's own Python, next to every seat's peer, drawn by the same ``table.js``.

Headless Chromium at a phone's size with touch, served only files
(:class:`cli.web.phone_files.PhoneFiles` and :func:`cli.web.phone_files.phone_page`): no socket,
no server that plays. The game is played by taps on the page's buttons (the hint's move, a
question's proposed answer, the summary's Next hand) to the game's end; then the log the page
saved in its own file system audits CLEAN in the page, and the same bytes audit CLEAN on CPython.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from cli.web.phone_files import phone_page
from p2p10.audit import audit_bytes
from tests.browser import phone, shot, start_chrome
from tests.page_core import Server
from tests.test_web_play import click, until, view

pytestmark = [pytest.mark.slow, pytest.mark.browser]

PATIENCE = 240.0  # s: the core starting, then a whole hand against bots, on a loaded machine
SETTINGS = {"mode": "solo", "name": "Tess", "bots": 2, "options": ["hands=1"], "seed": 5, "pace": 0}


@pytest.fixture
def solo() -> Iterator[Any]:
    server = Server(pages={"/solo": phone_page(SETTINGS, "en")})
    driver = start_chrome()
    driver.set_script_timeout(PATIENCE)
    phone(driver)
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    try:
        driver.get(server.url + "solo")
        yield driver
    finally:
        driver.quit()
        server.stop()


def real_click(driver: Any, css: str) -> bool:
    """A click through the WebDriver (a trusted gesture, as a finger's, which a script's click()
    is not) on the element matching ``css``; False if there is none, or the page drew it anew
    between finding and clicking (it redraws as the bots play): then try again."""
    from selenium.common.exceptions import StaleElementReferenceException

    try:
        found = driver.find_elements("css selector", css)
        if not found:
            return False
        found[0].click()
    except StaleElementReferenceException:
        return False
    return True


def play(driver: Any, until_taps: int | None) -> int:
    """Tap the page's buttons (the hint's move, a question's proposed answer, Next hand) until
    the game is over, or ``until_taps`` taps; how many taps."""
    deadline = time.monotonic() + PATIENCE
    taps = 0
    while time.monotonic() < deadline and (until_taps is None or taps < until_taps):
        v = view(driver) or {}
        if v.get("screen") == "over":
            break
        before = v.get("v")
        if v.get("screen") == "hand":
            tapped = click(driver, '.dialog button[data-key="Enter"]')
        elif v.get("prompt"):
            tapped = click(driver, ".prompt button.choice.current")
        else:
            tapped = click(driver, 'button[data-key="p"]')
        if tapped:
            taps += 1
            until(driver, lambda seen=before: (w := view(driver)) and w.get("v") != seen, "the tap's answer")
        else:
            time.sleep(0.05)
    return taps


def audited(driver: Any) -> bytes:
    """The log the page saved, audited in the page (CLEAN), as its bytes."""
    done = driver.execute_async_script("""
const done = arguments[arguments.length - 1];
P2P10.transport.run(`
import base64, glob, json
from p2p10.audit import audit_bytes
path = sorted(glob.glob("/home/pyodide/games/**/*.p2p10", recursive=True))[0]
data = open(path, "rb").read()
json.dumps({"clean": audit_bytes(data).clean, "log": base64.b64encode(data).decode()})
`).then(done);
""")
    assert done["ok"], done.get("error")
    found = json.loads(done["value"])
    assert found["clean"]
    return base64.b64decode(found["log"])


def test_a_whole_game_in_the_page_by_taps_with_a_clean_log(solo: Any, tmp_path: Any) -> None:
    driver = solo
    v = until(driver, lambda: (w := view(driver)) and w.get("seats") and w, "the table")
    assert v["page"] == "table" and [seat["name"] for seat in v["seats"]] == ["Tess", "Bot 1 (normal)",
                                                                            "Bot 2 (normal)"]
    shot(driver, tmp_path, "page-seat-first")
    # The first real tap (a trusted gesture, as a finger's) asks the browser to keep the screen
    # on: the Screen Wake Lock here (127.0.0.1 is a secure context), a silent video elsewhere.
    assert driver.execute_script("return P2P10.awake")["asked"] is False
    until(driver, lambda: real_click(driver, "button.sort.on"), "a real tap on the sort button")
    awake = until(driver, lambda: (a := driver.execute_script("return P2P10.awake"))["asked"]
                  and (a["on"] or a["why"]) and a, "the browser's answer")
    # (a browser may still refuse it, a hidden page say: the page then has the browser's reason)
    assert awake["how"] == "wake lock" and (awake["on"] or awake["why"] == "NotAllowedError"), awake
    taps = play(driver, until_taps=None)
    over = view(driver) or {}
    shot(driver, tmp_path, "page-seat-over")
    assert over.get("screen") == "over", over.get("title")
    assert taps > 3
    # The log the page saved, audited there and here.
    report = audit_bytes(audited(driver))
    assert report.clean, report.verdict()
    assert report.table is not None and report.table.engine.winner is not None


def test_a_page_reloaded_mid_hand_goes_on_with_the_same_game(solo: Any, tmp_path: Any) -> None:
    driver = solo
    until(driver, lambda: (w := view(driver)) and w.get("hand") and w["hand"].get("cards"), "the hand")
    play(driver, until_taps=3)
    before = view(driver) or {}
    hand = [c["card"]["text"] for c in before["hand"]["cards"]]
    told = before["log_start"] + len(before["log"])
    time.sleep(1.0)  # (the files are written to IndexedDB a moment after each change)
    driver.refresh()
    after = until(driver, lambda: (w := view(driver)) and w.get("hand") and w["hand"].get("cards") and w,
                  "the table again")
    shot(driver, tmp_path, "page-seat-reloaded")
    # Pyodide restored from the memory snapshot this browser saved when it first started
    started = until(driver, lambda: driver.execute_script("return P2P10.coreReady"), "the core's start")
    assert started["from"] == "snapshot", started
    assert [c["card"]["text"] for c in after["hand"]["cards"]] == hand
    assert after["log_start"] + len(after["log"]) >= told  # the story so far, told again
    assert play(driver, until_taps=None) > 0
    assert (view(driver) or {}).get("screen") == "over"
    report = audit_bytes(audited(driver))
    assert report.clean and report.table is not None and report.table.engine.winner is not None
