"""``p2p10 replay --html``: a saved game as one self-contained web page, opened from a file with
the network blocked in a real browser, stepped by keys to its end, showing the scores that
``p2p10 replay`` prints and the verdict that ``p2p10 audit`` prints; and the score chart."""

from __future__ import annotations

import hashlib
import html
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli.web.charts import score_chart
from p2p10.log import parse_entry, read_records
from tests.browser import chrome, desktop, offline, phone, shot
from tests.test_cli_imports import LAN_STACK, probe

__all__ = ["chrome"]  # the fixture, taken by name below

NAMES = ("greedy 1", "random 2", "greedy 3")


def p2p10(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True,
                          timeout=300, check=False)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3-player, 2-hand game played by the command itself (as tests/test_logs.py plays it)."""
    folder = tmp_path_factory.mktemp("games")
    result = p2p10("simulate", "--players", "3", "--games", "1", "--crypto", "--save", str(folder),
                   "--seed", "7", "-o", "hands=2", "--policies", "greedy,random")
    assert result.returncode == 0, result.stderr
    return folder / "game-0001.p2p10"


@pytest.fixture(scope="module")
def pages(saved: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The page of the saved game in English, German and Spanish."""
    folder = tmp_path_factory.mktemp("pages")
    made = {}
    for lang in ("en", "de", "es"):
        out = folder / f"game-{lang}.html"
        result = p2p10("--lang", lang, "replay", "--html", str(saved), "-o", str(out))
        assert result.returncode == 0, result.stderr
        assert str(out) in result.stdout
        made[lang] = out
    return made


def final_totals(saved: Path) -> dict[str, int]:
    """Each player's total in the last "Totals:" line of ``p2p10 replay``'s transcript."""
    transcript = p2p10("replay", "--text", str(saved)).stdout
    line = [x.strip() for x in transcript.splitlines() if x.strip().startswith("Totals: ")][-1]
    found = dict(re.findall(r"([^,]+?) (\d+)(?:,|\.$)\s*", line.removeprefix("Totals: ")))
    assert sorted(found) == sorted(NAMES), line
    return {name: int(points) for name, points in found.items()}


def test_the_page_stands_alone_with_the_verdict_and_the_hashes(saved: Path, pages: dict[str, Path]) -> None:
    html = pages["en"].read_text()
    # Nothing to fetch: no address in any src or href, no other file.
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:|//)""", html, re.I)
    assert re.findall(r"""\b(?:src|href)\s*=\s*["']([^"']*)""", html) == ["data:,"]
    assert "connect-src 'none'" in html.replace("&#x27;", "'")
    audit = p2p10("audit", str(saved)).stdout.splitlines()
    assert audit[-1].startswith("CLEAN: ")
    assert audit[-1] in html
    assert hashlib.sha256(saved.read_bytes()).hexdigest() in html
    last = parse_entry(read_records(saved.read_bytes()).items[-1])
    assert last.hash.hex() in html
    assert "computed by p2p10 audit when this file was made" in html


def test_the_command_says_what_is_wrong_and_loads_no_web_server(saved: Path, tmp_path: Path) -> None:
    missing = p2p10("replay", "--html", str(saved))
    assert missing.returncode == 2 and "--html needs -o FILE.html" in missing.stderr
    alone = p2p10("replay", str(saved), "-o", str(tmp_path / "x.html"))
    assert alone.returncode == 2 and "-o is for --html" in alone.stderr
    nowhere = p2p10("replay", "--html", str(saved), "-o", str(tmp_path / "no" / "such" / "x.html"))
    assert nowhere.returncode == 2 and "cannot write the page there" in nowhere.stderr
    assert "Traceback" not in nowhere.stderr
    out = tmp_path / "page.html"
    result = probe(["replay", "--html", str(saved), "-o", str(out)])
    assert result["statuses"] == [0]
    assert result["loaded"] == [] and set(LAN_STACK) >= {"aiohttp"}
    assert out.exists()


def test_a_log_cut_short_makes_a_page_with_the_audits_verdict(saved: Path, tmp_path: Path) -> None:
    records = read_records(saved.read_bytes()).items
    cut = tmp_path / "cut.p2p10"
    raw = saved.read_bytes()
    cut.write_bytes(raw[:raw.index(records[40])])  # in the first hand, entry 40's length kept
    out = tmp_path / "cut.html"
    done = p2p10("replay", "--html", str(cut), "-o", str(out))
    assert done.returncode == 0, done.stderr
    verdict = p2p10("audit", str(cut)).stdout.splitlines()[-1]
    assert verdict.startswith("DAMAGED: the file ends in the middle of entry 40")
    page = out.read_text()
    assert html.escape(verdict, quote=False) in page
    assert str(tmp_path) not in page  # the page names the file, not where it was kept


def test_the_chart_names_its_players_escaped_and_says_the_totals() -> None:
    svg = score_chart(["Ann <b>", "Bob & Co"], [[10, 25, 25], [0, 40, 95]], "Scores <over> hands")
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "<title>Scores &lt;over&gt; hands</title>" in svg
    assert "Ann &lt;b&gt;" in svg and "Bob &amp; Co" in svg and "<b>" not in svg
    assert re.search(r"<desc>[^<]*Ann &lt;b&gt; 25, Bob &amp; Co 95", svg)
    assert 'role="img"' in svg and "style=" not in svg
    assert svg.count('data-hand="3"') == 2 * 2  # a segment and a marker for each player


def visible_totals(driver: Any) -> dict[str, int]:
    """The totals row of the page's score sheet, by name."""
    heads = driver.execute_script(
        "return Array.from(document.querySelectorAll('#sheet-table thead th')).map(e => e.textContent)")
    cells = driver.execute_script(
        "return Array.from(document.querySelectorAll('#sheet-table tfoot td')).map(e => e.textContent)")
    return dict(zip(heads[1:], (int(c) for c in cells), strict=True))


def seat_points(driver: Any) -> dict[str, int]:
    """The points each seat's line on the table shows."""
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll('.seat')).map("
        "e => [e.querySelector('.name').textContent, e.querySelector('.points').textContent])")
    return {name: int(re.sub(r"\D", "", points)) for name, points in rows}


def press(driver: Any, key: str, times: int = 1) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    for _ in range(times):
        ActionChains(driver).send_keys(key).perform()


def count(driver: Any, selector: str) -> int:
    """How many elements of the page ``selector`` finds."""
    return int(driver.execute_script("return document.querySelectorAll(arguments[0]).length", selector))


def step(driver: Any) -> int:
    return int(driver.execute_script("return document.body.dataset.step"))


@pytest.mark.slow
@pytest.mark.browser
def test_the_page_opens_offline_and_steps_by_keys_to_the_final_scores(
        chrome: Any, saved: Path, pages: dict[str, Path], tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    offline(chrome)
    desktop(chrome)
    chrome.get(pages["en"].as_uri())
    assert chrome.execute_script("return document.body.classList.contains('ready')")
    assert step(chrome) == 0
    press(chrome, Keys.ARROW_DOWN)  # to hand 1
    first = step(chrome)
    press(chrome, Keys.ARROW_RIGHT, 3)
    assert step(chrome) == first + 3
    press(chrome, Keys.ARROW_LEFT)
    assert step(chrome) == first + 2
    # A spectator sees nobody's cards in the middle of a hand; seat 2 sees its own.
    hidden = count(chrome, '.seat .hand [data-card="?"]')
    shown = count(chrome, ".seat .hand [data-id]")
    assert hidden > 20 and shown == 0
    press(chrome, "2")
    own = chrome.execute_script(
        "return Array.from(document.querySelectorAll('.seat')[1].querySelectorAll('.hand [role=img]'))"
        ".map(e => e.getAttribute('aria-label'))")
    assert own and "a hidden card" not in own
    assert "as random 2" in chrome.find_element("id", "where").text
    shot(chrome, tmp_path, "replay-desktop-hand1")
    phone(chrome)
    shot(chrome, tmp_path, "replay-phone-hand1")
    assert chrome.execute_script("return document.documentElement.scrollWidth") <= 360
    spilled = chrome.execute_script("return Array.from(document.querySelectorAll('.panel'))"
                                    ".filter(e => e.scrollWidth > e.clientWidth + 1).length")
    assert spilled == 0
    press(chrome, Keys.END)
    frames = chrome.execute_script("return JSON.parse(document.getElementById('p2p10-data').textContent)"
                                   ".frames.length")
    assert step(chrome) == frames - 1
    expected = final_totals(saved)
    assert visible_totals(chrome) == expected
    assert seat_points(chrome) == expected
    assert "Game over" in chrome.find_element("id", "status").text
    # The cards left at the end, opened by the last reveal, face up for everybody.
    press(chrome, "0")
    assert count(chrome, '.seat .hand [data-card="?"]') == 0
    assert count(chrome, ".seat .hand [data-id]") > 0
    assert chrome.find_element("id", "chart").is_displayed()
    shot(chrome, tmp_path, "replay-phone-end")
    desktop(chrome)
    shot(chrome, tmp_path, "replay-desktop-end")
    press(chrome, Keys.HOME)
    assert step(chrome) == 0
    assert [e for e in chrome.get_log("browser") if e["level"] == "SEVERE"] == []


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("lang", ["de", "es"])
def test_the_translated_pages_leave_no_english_word(chrome: Any, pages: dict[str, Path], lang: str,
                                                    tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    from tests.test_screen_sweep import ALLOWED, LETTERS, NOT_WORDS, vocabulary

    ours, english = vocabulary(lang)
    # Technical names the translations keep (German says "Seed" too, in the reveal's line that
    # the terminal's move log leaves out and the page shows): the hash function, a hash, a seed.
    english_only = english - ours - ALLOWED - {"sha", "hash", "seed"}
    offline(chrome)
    chrome.get(pages[lang].as_uri())
    found: set[str] = set()
    for key, times in ((Keys.ARROW_DOWN, 1), (Keys.ARROW_RIGHT, 5), ("1", 1), (Keys.END, 1)):
        press(chrome, key, times)
        # What a reader sees and hears: the text, the buttons' and cards' names; not the
        # players' names, the hashes, nor the audit's verdict and report (its words are a
        # documented token, the same in every language, as p2p10 audit prints them).
        text = chrome.execute_script("""
            const page = document.body.cloneNode(true);
            const skipped = 'script, code, pre, .verdict, .name, .players, title';
            page.querySelectorAll(skipped).forEach(e => e.remove());
            const labels = Array.from(document.querySelectorAll('[aria-label], [title]')).map(
                e => (e.getAttribute('aria-label') || '') + ' ' + (e.getAttribute('title') || ''));
            document.body.appendChild(page); page.hidden = false;
            const words = page.innerText;
            page.remove();
            return words + '\\n' + labels.join('\\n');""")
        for name in NAMES:
            text = text.replace(name, " ")
        for word in LETTERS.findall(NOT_WORDS.sub(" ", text)):
            if len(word) > 1 and word.lower() in english_only:
                found.add(word)
    shot(chrome, tmp_path, f"replay-{lang}")
    assert not found, sorted(found)
