"""``p2p10 stats --html``: the record as one self-contained page, its figures the record's own,
drawn at a phone's and a desktop's width in a real browser."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli.web.stats_html import LATEST_SHOWN, phases_by_game, stats_body
from p2p10.record import PERSON, GameResult, Player, Record, level_text
from tests.browser import chrome, desktop, offline, phone, shot
from tests.test_cli_imports import DEALING, LAN_STACK, probe

__all__ = ["chrome"]  # the fixture, taken by name below


def result(game_id: str, *, won: bool, levels: tuple[str, ...], date: str, made: tuple[int | None, ...],
           options: tuple[str, ...] = (), score: int = 50) -> GameResult:
    players = (Player("Ann", PERSON), *(Player(f"Bot {i} ({lv})", lv) for i, lv in enumerate(levels, 1)))
    return GameResult(game_id, date, f"/games/{game_id}.p2p10", players, 0, 0 if won else 1, score,
                      max((p for p in made if p is not None), default=None), made, len(made), options)


def a_record() -> Record:
    """Games of two kinds, against several levels and table sizes, won and lost."""
    games = [
        result("a", won=True, levels=("hard",), date="2025-01-01T10:00:00", made=(1, 2, None)),
        result("b", won=False, levels=("hard", "easy"), date="2025-01-03T10:00:00", made=(1, None)),
        result("c", won=False, levels=(PERSON,), date="2025-01-02T10:00:00", made=(None, None, 1, 2)),
        result("d", won=True, levels=("normal", "hard", PERSON), date="2025-01-05T10:00:00",
               made=(1, 2, 3), options=("hands=3",), score=20),
        result("e", won=False, levels=("easy",), date="2025-01-04T10:00:00", made=(None,),
               options=("hands=3",)),
    ]
    record = Record()
    for game in games:
        record = record.add(game)
    return record


def rows(section: str, key: str) -> list[str]:
    """The cells (won, lost, share) of the tally row ``data-key=key`` in ``section``."""
    found = re.search(rf'<tr data-key="{re.escape(key)}">(.*?)</tr>', section)
    assert found, key
    return [html.unescape(c) for c in re.findall(r'<td class="n">([^<]*)</td>', found.group(1))]


def test_the_page_shows_the_records_own_figures(tmp_path: Path) -> None:
    record = a_record()
    page = stats_body(record, tmp_path / "record.json")
    assert html.escape(record.heading()) in page
    sections = re.findall(r'<section class="panel kind" data-kind="([^"]*)">(.*?)</section>', page)
    assert [kind for kind, _s in sections] == ["", "hands=3"]
    for (kind, section), games in zip(sections, record.by_kind().values(), strict=True):
        assert html.escape(games.kind_heading(tuple(kind.split(",")) if kind else ())) in section
        for level, tally in games.by_level().items():
            share = f"{round(100 * tally.won / tally.games)}%"
            assert rows(section, level) == [str(tally.won), str(tally.lost), share]
            assert f'<th scope="row">{html.escape(level_text(level))}</th>' in section
        for size, tally in games.by_table_size().items():
            assert rows(section, str(size))[:2] == [str(tally.won), str(tally.lost)]
        assert html.escape(games.phases_text()) in section
        assert html.escape(games.best_text()) in section
    standard = record.by_kind()[()]
    assert standard.by_level()["hard"].won == 1 and standard.by_level()["hard"].lost == 1
    assert standard.phases_made() == (5, 9)
    assert phases_by_game(record) == [("2025-01-01", 2 / 3), ("2025-01-02", 2 / 4), ("2025-01-03", 1 / 2),
                                      ("2025-01-04", 0.0), ("2025-01-05", 1.0)]
    latest = re.search(r'<table class="latest">.*?<tbody>(.*?)</tbody>', page)
    assert latest and latest.group(1).count("<tr>") == min(LATEST_SHOWN, len(record.games))
    assert latest.group(1).index("2025-01-05") < latest.group(1).index("2025-01-01")
    assert "<script>" not in page and "style=" not in page


def test_an_empty_record_makes_a_page_that_says_so(tmp_path: Path) -> None:
    assert "No finished games yet." in stats_body(Record(), tmp_path / "record.json")


def test_the_page_is_made_without_the_dealing_cryptography_or_the_lan_stack(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    out = tmp_path / "record.html"
    done = probe(["stats", "--html", "-o", str(out)], ["stats", "--html"], modules=DEALING + LAN_STACK)
    assert done["statuses"] == [0, 0]
    assert done["loaded"] == []
    assert out.exists() and (tmp_path / "data" / "p2p10" / "record.html").exists()


@pytest.mark.slow
@pytest.mark.browser
def test_the_record_page_at_a_phone_and_a_desktop(chrome: Any, tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "p2p10").mkdir(parents=True)
    (data / "p2p10" / "record.json").write_text(a_record().to_json())
    out = tmp_path / "record.html"
    env = {**os.environ, "XDG_DATA_HOME": str(data)}
    done = subprocess.run([sys.executable, "-m", "cli", "stats", "--html", "-o", str(out)],
                          capture_output=True, text=True, timeout=60, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert str(out) in done.stdout
    text = out.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:|//)""", text, re.I)
    offline(chrome)
    for size, name in ((phone, "phone"), (desktop, "desktop")):
        size(chrome)
        chrome.get(out.as_uri())
        width = chrome.execute_script("return window.innerWidth")
        assert chrome.execute_script("return document.documentElement.scrollWidth") <= width
        spilled = chrome.execute_script("return Array.from(document.querySelectorAll('.panel'))"
                                        ".filter(e => e.scrollWidth > e.clientWidth + 1).length")
        assert spilled == 0, name
        assert chrome.find_element("tag name", "h1").text == "Your record"
        charts = chrome.find_elements("css selector", "svg.p2p10-chart")
        assert len(charts) == 1 and charts[0].size["width"] > 250
        shot(chrome, tmp_path, f"stats-{name}")
    assert [e for e in chrome.get_log("browser") if e["level"] == "SEVERE"] == []
    wrong = subprocess.run([sys.executable, "-m", "cli", "stats", "-o", str(out)],
                           capture_output=True, text=True, timeout=60, env=env, check=False)
    assert wrong.returncode == 2 and "-o is for --html" in wrong.stderr
