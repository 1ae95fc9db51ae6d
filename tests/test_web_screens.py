"""The page draws its own screens: a hand's summary, the game's end, the score sheet, the help,
the rules and every meld are data the page lays out in HTML at its own width (never terminal
text cut to a width), in a dialog over the table whose keys stay in view.

Driven from outside the project in headless Chromium, as a person plays: keys pressed on the
page (``p`` plays the hint, Enter goes on), at a phone's size and a desktop's, in English,
German and Spanish. At each hand's end every player's points in the summary are the score
sheet's, the title never says that somebody plays while the table waits for the summary, no
text is cut and nothing is wider than the page; the score sheet of four players reads at
1920x1080 without scrolling sideways; two tabs of one seat, one at each size, both draw the
summary whole; a LAN table's chat line, opened and a line sent, fits both sizes too; axe-core
(tests/axe.py) finds no serious or critical violation on any screen.
Screenshots are kept under the test's temporary folder (``shots/``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.axe import axe_violations, describe
from tests.browser import desktop, phone, shot, start_chrome
from tests.test_web_play import PATIENCE, Web, changed, environment, page_text, until, version, view

pytestmark = [pytest.mark.slow, pytest.mark.browser]

GAME = ["play", "--name", "Tess", "--bots", "3", "--seed", "5", "--pace", "0"]

# What is wrong with the page as drawn, found by the page itself: every element outside the
# viewport's width, every element whose text does not fit its box (cut, or spilling over), and
# the page scrolling sideways. Elements in a folded part (closed <details>) are not drawn.
LAYOUT_FAULTS = """
const width = document.documentElement.clientWidth;
const faults = [];
if (document.documentElement.scrollWidth > width + 1) {
  faults.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + width);
}
for (const el of document.querySelectorAll('body *')) {
  if (el.closest('details:not([open]) > :not(summary)') || el.closest('svg')
      || el.closest('.visually-hidden')) continue;  // (for a screen reader only: clipped by design)
  const box = el.getBoundingClientRect();
  if (!box.width && !box.height) continue;
  const name = el.tagName.toLowerCase() + (el.className && typeof el.className === 'string'
    ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  if (box.right > width + 1 || box.left < -1) {
    faults.push(name + ' is outside the page: ' + Math.round(box.left) + '..' + Math.round(box.right)
      + ' of ' + width + ': ' + (el.innerText || '').slice(0, 60));
  }
  const text = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
  if (text && el.clientWidth && el.scrollWidth > el.clientWidth + 1) {
    faults.push(name + "'s text is cut: " + el.scrollWidth + ' > ' + el.clientWidth + ': '
      + (el.innerText || '').slice(0, 60));
  }
}
return faults;
"""

# The points of the last hand on the score sheet beside the table, per seat, read from the page
# in whichever form it is drawn (a column per player, or a row per player).
SHEET_POINTS = """
const wrap = document.querySelector('aside .sheet-wrap');
if (!wrap) return null;
const out = {};
if (wrap.getAttribute('data-form') === 'by-player') {
  for (const row of wrap.querySelectorAll('tbody tr[data-player]')) {
    const last = row.querySelector('.sheet-hands li:last-child');
    out[row.getAttribute('data-player')] = last ? last.textContent : null;
  }
} else {
  const rows = wrap.querySelectorAll('tr[data-row="hand"]');
  const last = rows[rows.length - 1];
  if (!last) return null;
  for (const cell of last.querySelectorAll('td[data-player]')) {
    out[cell.getAttribute('data-player')] = cell.textContent;
  }
}
return out;
"""

SUMMARY_POINTS = """
const out = {};
for (const row of document.querySelectorAll('.dialog .summary-table tr[data-player]')) {
  out[row.getAttribute('data-player')] = {
    name: row.querySelector('th').textContent,
    points: row.querySelector('[data-col="points"]').textContent,
    total: row.querySelector('[data-col="total"]').textContent};
}
return out;
"""


def key(driver: Any, name: str) -> None:
    """Press a key on the page as a keyboard does (the page reads keydown)."""
    driver.execute_script("document.body.dispatchEvent(new KeyboardEvent('keydown', "
                          "{key: arguments[0], bubbles: true}))", name)


def pressed(driver: Any, name: str) -> None:
    """Press a key and wait for the page to draw what it did."""
    before = version(driver)
    key(driver, name)
    changed(driver, before)


def next_hand(driver: Any) -> None:
    """Enter on a hand's summary, and wait for the summary to close (a view drawn before the key
    was read may still show it)."""
    key(driver, "Enter")
    until(driver, lambda: (w := view(driver)) and w.get("screen") != "hand", "the summary to close")


def faults(driver: Any) -> list[str]:
    result: list[str] = driver.execute_script(LAYOUT_FAULTS)
    return result


def resized(driver: Any, size: Any) -> None:
    """Show the page at ``size`` (:func:`~tests.browser.phone`, :func:`~tests.browser.desktop`)
    and let it lay itself out again (a table page draws itself anew at a new width, measuring
    its score sheets: wait for that drawing; the start screen only reflows)."""
    def layouts() -> int:
        return int(driver.execute_script("return Number(document.body.getAttribute('data-layouts') || 0)"))

    before = layouts()
    size(driver)
    driver.execute_script("window.dispatchEvent(new Event('resize'))")
    if (view(driver) or {}).get("page") == "start":
        time.sleep(0.3)
    else:  # (a view of the table's may come meanwhile: the drawing at the new size is another)
        until(driver, lambda: layouts() > before, "the page drawn at its new size")


def settle(driver: Any) -> None:
    """Let the page lay itself out at the size it has."""
    resized(driver, lambda _driver: None)


def at_sizes(driver: Any, tmp_path: Path, name: str, axe: tuple[str, ...] = ("phone", "desktop"),
             ) -> dict[str, list[str]]:
    """The layout faults of the screen on show at a phone's size and at a desktop's, and what
    axe-core finds serious or critical in it (WCAG 2.1 A and AA: names, contrast, keyboard) at
    the sizes ``axe`` names, each size kept as a screenshot."""
    found = {}
    for label, size in (("phone", phone), ("desktop", desktop)):
        resized(driver, size)
        shot(driver, tmp_path, f"{name}-{label}")
        found[f"{name} at {label}"] = faults(driver)
        violations = axe_violations(driver) if label in axe else []
        if violations:
            found[f"{name} at {label}: axe"] = [describe(violations)]
    return {k: v for k, v in found.items() if v}


def held_to_ask(v: dict[str, Any], asked: set[tuple[str, ...]]) -> str | None:
    """A Skip or a Wild in the user's hand whose discard question the sweep has not looked at
    yet ("S" or "W"), or None."""
    held = {c["card"]["text"] for c in (v.get("hand") or {}).get("cards", [])}
    return next((card for card in ("S", "W") if card in held and (card,) not in asked), None)


def last_points(cell: str) -> str:
    """A score sheet cell's points ("P2✓ 15", "1: P2 15", "-" for a hand sat out)."""
    return cell.split()[-1]


def check_summary(driver: Any, v: dict[str, Any]) -> None:
    """The hand's summary as drawn: every player's points and total equal the score sheet's
    (drawn beside the table, and in the view), and the title does not say anybody plays."""
    drawn = driver.execute_script(SUMMARY_POINTS)
    sheet = v["sheet"]
    beside = driver.execute_script(SHEET_POINTS)
    assert drawn and len(drawn) == len(sheet["names"]), drawn
    for seat, row in drawn.items():
        index = int(seat)
        assert row["name"] == sheet["names"][index]
        assert row["points"] == last_points(sheet["hands"][-1][index]), (row, sheet)
        assert row["total"] == sheet["totals"][index], (row, sheet)
        assert beside is not None and last_points(beside[seat]) == row["points"], (beside, row)
    title = driver.execute_script("return document.querySelector('h1.title').textContent")
    assert "is playing" not in title and "waits while you read" in title, title


def play_to_the_end(driver: Any, tmp_path: Path, on_summary: Any = None) -> dict[str, Any]:
    """Play the user's seat by keys (``p`` plays the hint, a question's proposed answer with
    Enter) until the game's end; ``on_summary(view)`` at each hand's end before Enter."""
    deadline = time.monotonic() + 10 * PATIENCE
    while time.monotonic() < deadline:
        v = until(driver, lambda: view(driver), "the table")
        if v.get("screen") == "over":
            return v
        if v.get("screen") == "hand":
            if on_summary is not None:
                on_summary(v)
            next_hand(driver)
        elif v.get("prompt"):
            pressed(driver, "Enter")
        elif any(k["key"] == "p" and k["enabled"] for k in v.get("keys") or []):
            pressed(driver, "p")
        else:
            time.sleep(0.05)
    raise AssertionError(f"the game did not end; the page:\n{page_text(driver)}")


def test_a_two_hand_game_on_a_phone_by_keys_every_summary_whole(tmp_path: Path) -> None:
    """The issue's bar: a 2-hand game on a 360x740 page by ``p`` and Enter; at each hand's end
    every player's points in the summary equal the score sheet's, no text is cut, the title
    never says a bot plays while the summary waits; at 1920x1080 the score sheet of four
    players does not scroll sideways."""
    web = Web([*GAME, "-o", "hands=2"], environment(tmp_path), tmp_path)
    driver = start_chrome()
    seen: list[int] = []
    problems: dict[str, list[str]] = {}
    try:
        phone(driver)
        driver.get(web.url)

        def summary(v: dict[str, Any]) -> None:
            seen.append(len(v["sheet"]["hands"]))
            check_summary(driver, v)
            # A screen reader was told that the table waits for the reader.
            live = driver.execute_script("return document.getElementById('live').textContent")
            assert "waits while you read" in live, live
            shot(driver, tmp_path, f"summary-{len(seen)}-phone")
            problems.update({f"summary {len(seen)}: {k}": f for k, f in
                             {"phone": faults(driver)}.items() if f})
            # The next hand's key is in view without scrolling.
            assert driver.execute_script(
                "const b = document.querySelector('.dialog-actions [data-key=\"Enter\"]')"
                ".getBoundingClientRect(); return b.bottom <= window.innerHeight && b.top >= 0;")

        over = play_to_the_end(driver, tmp_path, summary)
        assert seen == [1], seen  # the first hand's summary; the second's is the end screen's
        data = over["side"]["data"]
        totals = {row["seat"]: str(row["total"]) for row in data["last"]["rows"]}
        assert totals == dict(enumerate(over["sheet"]["totals"]))
        problems.update(at_sizes(driver, tmp_path, "over"))
        # At 1920x1080 the sheet of four players reads without scrolling sideways, in columns.
        desktop(driver)
        settle(driver)
        wrap = driver.execute_script(
            "const w = document.querySelector('aside .sheet-wrap');"
            "return [w.scrollWidth, w.clientWidth, w.getAttribute('data-form')];")
        assert wrap[0] <= wrap[1] and wrap[2] == "by-column", wrap
    finally:
        driver.quit()
        web.stop()
    assert not problems, problems


def test_two_tabs_of_one_seat_at_two_widths_both_draw_the_summary_whole(tmp_path: Path) -> None:
    web = Web([*GAME, "-o", "hands=2"], environment(tmp_path), tmp_path)
    driver = start_chrome()
    try:
        driver.get(web.url)
        big = driver.current_window_handle
        desktop(driver)
        until(driver, lambda: view(driver), "the first tab's table")
        driver.switch_to.new_window("tab")
        small = driver.current_window_handle
        phone(driver)
        driver.get(web.url)
        until(driver, lambda: view(driver), "the second tab's table")

        def summary(v: dict[str, Any]) -> None:
            for handle, label in ((small, "phone"), (big, "desktop")):
                driver.switch_to.window(handle)
                shown = until(driver, lambda: (w := view(driver)) and w.get("screen") == "hand" and w,
                              f"the summary in the {label} tab")
                check_summary(driver, shown)
                shot(driver, tmp_path, f"two-tabs-{label}")
                assert faults(driver) == [], (label, faults(driver))
            driver.switch_to.window(small)

        driver.switch_to.window(small)
        play_to_the_end(driver, tmp_path, summary)
    finally:
        driver.quit()
        web.stop()


@pytest.mark.parametrize("lang", ["en", "de", "es"])
def test_every_screen_fits_a_phone_and_a_desktop(tmp_path: Path, lang: str) -> None:
    """The table, a question, the help, the rules, the score sheet, every meld, a hand's summary
    and the game's end, at 360x740 and 1920x1080: nothing wider than the page, no text cut."""
    web = Web(["--lang", lang, *GAME, "-o", "hands=2"], environment(tmp_path, None), tmp_path)
    driver = start_chrome()
    problems: dict[str, list[str]] = {}
    # axe at both sizes in English; in German and Spanish at a phone's, where longer words
    # change the layout (a control's name, its role and the colours are the same in all three)
    axe = ("phone", "desktop") if lang == "en" else ("phone",)
    try:
        desktop(driver)
        driver.get(web.url)
        until(driver, lambda: (v := view(driver)) and v.get("hand") and v, "the table")
        problems.update(at_sizes(driver, tmp_path, f"{lang}-table", axe))
        for name in ("?", "r", "s", "m"):
            pressed(driver, name)
            assert view(driver)["side"] is not None  # type: ignore[index]
            problems.update(at_sizes(driver, tmp_path, f"{lang}-{name}", axe))
            pressed(driver, "Escape")
        pressed(driver, "q")  # a question: the quit question, whose answer is "no"
        assert view(driver)["prompt"] is not None  # type: ignore[index]
        problems.update(at_sizes(driver, tmp_path, f"{lang}-question", axe))
        pressed(driver, "Escape")
        played = 0
        asked: set[tuple[str, ...]] = set()  # the questions looked at, by their answers' keys
        while True:  # on to the game's end, looking at the table once a card is laid down
            v = until(driver, lambda: view(driver), "the table")
            if v.get("screen") == "over":
                break
            lit = {k["key"] for k in v.get("keys") or [] if k["enabled"]}
            if v.get("screen") == "hand":
                problems.update(at_sizes(driver, tmp_path, f"{lang}-summary", axe))
                next_hand(driver)
            elif v.get("prompt"):  # a question the game asked (a Skip's target, a Wild, ...)
                keys = tuple(c["key"] for c in v["prompt"]["choices"])
                if keys not in asked:
                    asked.add(keys)
                    problems.update(at_sizes(driver, tmp_path, f"{lang}-asked-{len(asked)}", axe))
                pressed(driver, "Enter")
            elif "L" in lit and ("L",) not in asked:  # the lay-down choice, looked at and left
                asked.add(("L",))
                pressed(driver, "L")
                if view(driver)["prompt"] is not None:  # type: ignore[index]
                    problems.update(at_sizes(driver, tmp_path, f"{lang}-lay-down-choice", axe))
                    key(driver, "Escape")
                    until(driver, lambda: (w := view(driver)) and w.get("prompt") is None, "no question")
            elif "x" in lit and (card := held_to_ask(v, asked)) is not None:
                # A Skip or a Wild in hand: discarding it asks (whom to skip; whether to give
                # the next player a Wild): the question looked at, and cancelled.
                asked.add((card,))
                slot = next(c["slot"] for c in v["hand"]["cards"] if c["card"]["text"] == card)
                before = version(driver)
                driver.execute_script("document.querySelector('.slot[data-slot=\"' + arguments[0] + '\"] "
                                      ".card-button').click()", slot)
                changed(driver, before)
                pressed(driver, "x")
                if view(driver)["prompt"] is not None:  # type: ignore[index]
                    problems.update(at_sizes(driver, tmp_path, f"{lang}-discard-{card}", axe))
                    key(driver, "Escape")
                    until(driver, lambda: (w := view(driver)) and w.get("prompt") is None, "no question")
                pressed(driver, "Escape")  # (and the card unselected)
            elif "p" in lit:
                played += 1
                if played == 6:
                    problems.update(at_sizes(driver, tmp_path, f"{lang}-table-later", axe))
                pressed(driver, "p")
            else:
                time.sleep(0.05)
        problems.update(at_sizes(driver, tmp_path, f"{lang}-over", axe))
        over = view(driver)
        assert over is not None and re.search(r"\d", over["side"]["data"]["title"])
    finally:
        driver.quit()
        web.stop()
    assert not problems, problems


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_start_screen_fits_and_reads(tmp_path: Path, lang: str) -> None:
    web = Web(["--lang", lang, "play"], environment(tmp_path, None), tmp_path)
    driver = start_chrome()
    try:
        driver.get(web.url)
        until(driver, lambda: (v := view(driver)) and v.get("page") == "start", "the start screen")
        problems = at_sizes(driver, tmp_path, f"{lang}-start")
    finally:
        driver.quit()
        web.stop()
    assert not problems, problems


def test_the_score_sheet_of_six_players_reads_at_1920_without_scrolling_sideways(tmp_path: Path) -> None:
    """Six players (five bots, their levels in their names) at 1920x1080: the score sheet beside
    the table keeps a column per player and fits its box; at 360x740 it turns to a row per
    player, and fits too."""
    web = Web(["play", "--name", "Tess", "--bots", "5", "--seed", "5", "--pace", "0", "-o", "hands=1"],
              environment(tmp_path), tmp_path)
    driver = start_chrome()
    forms = {}
    try:
        desktop(driver)
        driver.get(web.url)
        until(driver, lambda: (v := view(driver)) and v.get("sheet") and len(v["sheet"]["names"]) == 6,
              "the table of six")
        for label, size in (("desktop", desktop), ("phone", phone)):
            size(driver)
            settle(driver)
            driver.execute_script("document.querySelector('aside details.sheet').open = true")
            time.sleep(0.2)
            shot(driver, tmp_path, f"six-{label}")
            forms[label] = driver.execute_script(
                "const w = document.querySelector('aside .sheet-wrap');"
                "return [w.getAttribute('data-form'), w.scrollWidth <= w.clientWidth];")
            assert faults(driver) == [], (label, faults(driver))
    finally:
        driver.quit()
        web.stop()
    assert forms == {"desktop": ["by-column", True], "phone": ["by-player", True]}, forms


class LanWeb:
    """``p2p10 host --web --no-browser`` on 127.0.0.1, quiet on the network, with its own bots
    in the other seats (so the table is full and starts at once); the page's address read from
    the line of its own the host prints when the game starts."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cli", *args, "--quiet-network", "--interface", "127.0.0.1",
             "--web", "--no-browser", "--save", str(cwd / "logs")],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=env, cwd=cwd)
        assert self.proc.stdout is not None
        said = []
        for line in self.proc.stdout:  # (the host's lines before the game, then the address)
            said.append(line)
            if re.fullmatch(r"http://127\.0\.0\.1:\d+/#t=[A-Za-z0-9_-]{20,}", line.strip()):
                self.url = line.strip()
                break
        else:
            raise AssertionError(f"no page address: {''.join(said)}{self.proc.stderr.read()}")  # type: ignore[union-attr]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.communicate(timeout=PATIENCE)


@pytest.mark.parametrize("lang", ["en", "de", "es"])
def test_a_lan_tables_chat_fits_a_phone_and_a_desktop(tmp_path: Path, lang: str) -> None:
    """The LAN table's own screen: the chat line opened by its key, a line sent and told in the
    move log, at 360x740 and 1920x1080, nothing wider than the page, no text cut, axe clean."""
    web = LanWeb(["--lang", lang, "host", "--name", "Tess", "--seats", "3", "--bots", "2", "-o", "hands=1"],
                 environment(tmp_path, None), tmp_path)
    driver = start_chrome()
    axe = ("phone", "desktop") if lang == "en" else ("phone",)
    try:
        phone(driver)
        driver.get(web.url)
        v = until(driver, lambda: (w := view(driver)) and w.get("hand") and w, "the LAN table")
        assert any(k["key"] == "c" for k in v["keys"]), v["keys"]
        key(driver, "c")  # the page's own chat line, focused
        until(driver, lambda: driver.execute_script(
            "return document.activeElement && document.activeElement.id === 'chat-line'"), "the chat line")
        driver.switch_to.active_element.send_keys("good luck, bots\n")
        until(driver, lambda: "good luck, bots" in " ".join(line["text"] for line in view(driver)["log"]),  # type: ignore[index]
              "the line told in the move log")
        driver.execute_script("document.getElementById('chat-line').focus()")
        problems = at_sizes(driver, tmp_path, f"{lang}-lan-chat", axe)
    finally:
        driver.quit()
        web.stop()
    assert not problems, problems
