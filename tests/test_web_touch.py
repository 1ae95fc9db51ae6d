"""``p2p10 play --web`` on a phone, by touch only (issue 36): a whole game played by taps.

Headless Chromium at a phone's size (360x740, a mobile viewport) with touch emulated; every move
is a real tap, a ``touchStart`` and a ``touchEnd`` sent through the DevTools protocol at the
centre of what is tapped, as a finger does: a card to select it, the draw pile to draw, a card
then the discard pile to discard, a card then a meld to hit it, the keys' buttons (lay down, the
hint), the answers to the table's questions and the summary's button. No key is pressed and no
element is clicked from a script; the page itself counts what it received (no keydown, every
click a touch's). The game reaches the winners' screen, the command ends cleanly and the log it
saved audits clean. The title stays in view when the page is scrolled to its foot (it is sticky).
Screenshots (``shots/``) are kept under the test's temporary folder for a person to look at.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

from p2p10.audit import audit_bytes
from tests.browser import phone, shot, start_chrome
from tests.test_web_play import PATIENCE, Web, changed, environment, page_text, until, version, view

pytestmark = [pytest.mark.slow, pytest.mark.browser]

MAX_STEPS = 2000  # taps and answers in a game of two hands: far more than one takes (a few hundred)
HITS_PER_TURN = 6  # hit attempts on one turn before the card is simply discarded

# Where to tap the first element matching arguments[0] that is enabled and drawn: scrolled into
# view, the centre of its box in CSS pixels of the viewport, and what is drawn there (another
# element covering it would take the tap).
TARGET = """
for (const e of document.querySelectorAll(arguments[0])) {
  if (e.disabled) continue;
  e.scrollIntoView({block: 'center', inline: 'center'});
  const r = e.getBoundingClientRect();
  if (!r.width || !r.height) continue;
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const there = document.elementFromPoint(x, y);
  const name = n => n ? n.tagName.toLowerCase() + (typeof n.className === 'string' && n.className.trim()
    ? '.' + n.className.trim().split(/\\s+/).join('.') : '') : 'nothing';
  return {x: x, y: y, covered: there && (e === there || e.contains(there)) ? null : name(there)};
}
return null;
"""

# What the page received, counted by the page itself from the first view on.
LISTEN = """
if (!window.__taps) {
  window.__taps = {keydown: 0, touchstart: 0, clicks: []};
  document.addEventListener('keydown', () => { window.__taps.keydown += 1; }, true);
  document.addEventListener('touchstart', () => { window.__taps.touchstart += 1; }, true);
  document.addEventListener('click', e => { window.__taps.clicks.push(e.pointerType || 'none'); }, true);
}
"""


class Taps:
    """The taps made, and any that landed on something else than its target."""

    def __init__(self) -> None:
        self.count = 0
        self.covered: list[str] = []


def tap(driver: Any, css: str, taps: Taps | None = None) -> bool:
    """Tap the first element matching ``css`` that is there and enabled, at its centre, with a
    touch (``touchStart``, ``touchEnd``); False if there is none."""
    target = driver.execute_script(TARGET, css)
    if not target:
        return False
    x, y = target["x"], target["y"]
    if taps is not None:
        taps.count += 1
        if target["covered"]:
            taps.covered.append(f"{css} at ({x:.0f}, {y:.0f}) is under {target['covered']}")
    driver.execute_cdp_cmd("Input.dispatchTouchEvent",
                           {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    return True


def step(driver: Any, css: str, taps: Taps) -> None:
    """Tap ``css`` (as soon as it is there and enabled) and wait for the page to draw what the
    tap did: a page that ignores the tap fails here, saying what was tapped."""
    before = version(driver)
    until(driver, lambda: tap(driver, css, taps), f"{css} to tap")
    try:
        changed(driver, before)
    except AssertionError as err:
        raise AssertionError(f"the page did not answer a tap on {css}: {err}") from None


def enabled(v: dict[str, Any], key: str) -> bool:
    return any(k["key"] == key and k["enabled"] for k in v.get("keys") or [])


def down(v: dict[str, Any]) -> bool:
    return any(seat["me"] and seat["down"] for seat in v["seats"])


def title_in_view(driver: Any) -> dict[str, float]:
    """Scroll the page to its foot; the title's box then, and the viewport's height."""
    return dict(driver.execute_script("""
        window.scrollTo(0, document.body.scrollHeight);
        const r = document.querySelector('header.top h1.title').getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, height: window.innerHeight,
                scrolled: window.scrollY, page: document.documentElement.scrollHeight};"""))


def play_by_taps(driver: Any, tmp_path: Path, taps: Taps) -> dict[str, Any]:
    """Play the user's seat by taps until the game's end screen; returns its view."""
    laid_tried: set[int] = set()
    tried: set[tuple[int, str, int]] = set()  # (turn, card, meld): the hits tried
    hits = 0
    turn = 0  # the user's turns so far (one draw each)
    summaries = 0
    deadline = time.monotonic() + 20 * PATIENCE
    for _step in range(MAX_STEPS):
        assert time.monotonic() < deadline, f"the game did not end in time; the page:\n{page_text(driver)}"
        v = until(driver, lambda: view(driver), "the table")
        if os.environ.get("P2P10_DEBUG"):
            lit = [k["key"] for k in v["keys"] if k["enabled"]]
            print(v.get("screen"), v.get("title"), lit, v.get("prompt"), v.get("status"), flush=True)
        if v.get("screen") == "over":
            return dict(v)
        if v.get("prompt"):
            keys = [c["key"] for c in v["prompt"]["choices"]]
            # A yes-or-no question (a Wild to discard): yes; else the answer the table proposes.
            index = 0 if keys == ["y", "n"] else v["prompt"]["index"]
            step(driver, f'.prompt .choice[data-index="{index}"]', taps)
        elif v.get("screen") == "hand":  # a hand's summary, a dialog: its Enter is a button
            if summaries == 0:
                shot(driver, tmp_path, "touch-summary-phone")
            if not tap(driver, '.dialog-actions [data-key="Enter"]', taps):
                time.sleep(0.05)  # it gave way to the next hand between the view and the tap
                continue
            summaries += 1
            until(driver, lambda: (w := view(driver)) is not None and w.get("screen") != "hand",
                  "the summary to close after a tap on its Enter")
        elif v.get("screen") != "table":
            step(driver, '.dialog-actions [data-key="Enter"]', taps)
        elif enabled(v, "d"):
            turn += 1
            hits = 0
            if turn == 1:
                shot(driver, tmp_path, "touch-first-turn-phone")
                box = title_in_view(driver)
                assert box["scrolled"] > 0, f"the phone's page does not scroll, nothing to check: {box}"
                assert box["top"] >= 0 and box["bottom"] <= box["height"], \
                    f"the title left the view when the page was scrolled to its foot: {box}"
                shot(driver, tmp_path, "touch-first-turn-phone-foot")
            step(driver, '[data-pile="draw"]', taps)
        elif enabled(v, "x"):
            cards = v["hand"]["cards"] if v.get("hand") else []
            melds = [m["id"] for seat in v["seats"] for m in seat.get("melds") or []]
            hit = next(((c, m) for c in cards if c["fit"] for m in melds
                        if (turn, c["card"]["text"], m) not in tried), None)
            if enabled(v, "l") and turn not in laid_tried and not down(v):
                laid_tried.add(turn)
                step(driver, '.keys [data-key="l"]', taps)
            elif enabled(v, "h") and hit is not None and hits < HITS_PER_TURN:
                hits += 1
                card, meld = hit
                tried.add((turn, card["card"]["text"], meld))
                # The hint first: it clears the selection and says something new, so that what
                # follows (the card raised, then the hit or why not) is always a new view.
                step(driver, '.keys [data-key="i"]', taps)
                slot = f'.slot[data-slot="{card["slot"]}"] .card-button'
                step(driver, slot, taps)
                step(driver, f'button[data-meld="{meld}"]', taps)
                after = view(driver) or {}
                hand = after.get("hand") or {"cards": []}
                if not after.get("prompt") and any(c["raised"] for c in hand["cards"]):
                    step(driver, '.slot.raised .card-button', taps)  # refused: unselect the card
            else:
                step(driver, '.keys [data-key="i"]', taps)  # the hint puts the cursor on its card
                slot = driver.execute_script("var e = document.querySelector('.slot.cursor');"
                                             "return e && e.getAttribute('data-slot');")
                assert slot is not None, page_text(driver)
                step(driver, f'.slot[data-slot="{slot}"] .card-button', taps)
                step(driver, '[data-pile="discard"]', taps)
        else:
            time.sleep(0.05)
    raise AssertionError(f"the game did not end in {MAX_STEPS} steps; the page:\n{page_text(driver)}")


def test_a_whole_game_by_taps_on_a_phone_to_the_winners_screen(tmp_path: Path) -> None:
    driver = start_chrome()
    web = Web(["play", "--name", "Ann", "--bots", "2", "--seed", "5", "-o", "hands=2", "--pace", "0"],
              environment(tmp_path), tmp_path)
    taps = Taps()
    try:
        phone(driver)
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        driver.get(web.url)
        first = until(driver, lambda: view(driver), "the first view")
        assert first["page"] == "table"
        assert driver.execute_script("return navigator.maxTouchPoints") == 5
        assert driver.execute_script("return window.innerWidth") == 360
        driver.execute_script(LISTEN)
        try:
            over = play_by_taps(driver, tmp_path, taps)
        except AssertionError as failure:
            where = shot(driver, tmp_path, "touch-failed")
            raise AssertionError(f"{failure}\n(screenshot: {where}; taps so far: {taps.count}; "
                                 f"covered: {taps.covered})") from None
        shot(driver, tmp_path, "touch-over-phone")
        side = over["side"]["data"]
        assert side["title"].startswith("Game over"), side
        received = driver.execute_script("return window.__taps")
        tapped = taps.count
        if os.environ.get("P2P10_DEBUG"):
            print("taps:", tapped, "received:", received["touchstart"], "touches,", len(received["clicks"]),
                  "clicks,", received["keydown"], "keys", flush=True)
        assert tap(driver, '.dialog-actions [data-key="Enter"]', taps), page_text(driver)  # leave
        out, err = web.finish()
    finally:
        web.stop()
        driver.quit()
    assert web.proc.returncode == 0, err
    assert "Traceback" not in err, err
    assert "won the game." in out, out
    # What the page received: touches only, each tap a touch, each click a touch's.
    assert received["keydown"] == 0, received
    assert received["touchstart"] == tapped >= 50, (received["touchstart"], tapped)
    assert received["clicks"] and set(received["clicks"]) == {"touch"}, received["clicks"]
    assert not taps.covered, taps.covered
    found = re.search(r"p2p10 audit (.+\.p2p10)$", out, re.M)
    assert found, out
    report = audit_bytes(Path(found.group(1)).read_bytes())
    assert report.clean, report.verdict()
