"""The page assembler of the browser front end (cli/web/page.py) and the card drawing
(cli/web/static/cards.js): the policy allows exactly the inlined texts, embedded data cannot end
its element, every static file ships in the package, and the cards draw in a real browser."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import tomllib
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest

from cli.web.page import DATA_ID, page, static
from p2p10.seat_view import as_json, card_view
from tests.browser import chrome, offline, phone, shot

__all__ = ["chrome"]  # the fixture, taken by name below

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "cli" / "web" / "static"


def sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def inline(document: str, tag: str) -> list[str]:
    return re.findall(rf"<{tag}>(.*?)</{tag}>", document, re.S)


def test_the_policy_allows_exactly_the_inlined_script_and_style() -> None:
    built = page("A <title>", "de", ["cards.js"], ["base.css"], body="<main></main>", data={"a": 1})
    [script] = inline(built.html, "script")
    [style] = inline(built.html, "style")
    assert script == static("cards.js")
    assert style == static("base.css")
    directives = dict(part.split(" ", 1) for part in built.csp.split("; "))
    assert directives == {
        "default-src": "'none'", "script-src": sha(script), "style-src": sha(style), "img-src": "data:",
        "connect-src": "'none'", "base-uri": "'none'", "form-action": "'none'"}
    assert f'http-equiv="Content-Security-Policy" content="{built.csp}"' in built.html.replace("&#x27;", "'")
    assert '<html lang="de">' in built.html and "<title>A &lt;title&gt;</title>" in built.html
    assert '<link rel="icon" href="data:,">' in built.html and '<meta charset="utf-8">' in built.html
    assert "connect-src 'self'" in page("t", "en", [], [], connect=True).csp


def test_data_cannot_close_its_element() -> None:
    evil = {"name": "</script><script>alert(1)</script><!--", "x": "a\u2028b"}
    built = page("t", "en", ["cards.js"], ["base.css"], data=evil)
    start = built.html.index(f'<script type="application/json" id="{DATA_ID}">')
    rest = built.html[start:]
    body = rest[rest.index(">") + 1:rest.index("</script>")]
    assert json.loads(body) == evil
    assert "<" not in body
    assert built.html.count("<script") == 2


def test_every_static_file_ships_in_the_package() -> None:
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert globs["p2p10"] == ["locale/*.pot", "locale/*.md", "locale/*/LC_MESSAGES/*.po"]
    names = [path.relative_to(STATIC.parent).as_posix() for path in STATIC.iterdir()]
    assert names
    for name in names:
        assert any(fnmatch(name, glob) for glob in globs["cli.web"]), name


CARDS = [0, 13, 30, 47, 60, 80, 96, 104]  # red, blue, green, yellow ones, then Wilds and Skips


@pytest.mark.slow
@pytest.mark.browser
def test_cards_draw_with_their_names_offline(chrome: Any, tmp_path: Path) -> None:
    views = [as_json(card_view(card)) for card in CARDS]
    body = '<main id="hand"></main><main id="melds"></main>'
    built = page("cards", "en", ["cards.js"], ["base.css"], body=body, data=views)
    path = tmp_path / "cards.html"
    path.write_text(built.html)
    offline(chrome)
    chrome.get(path.as_uri())
    # The test draws through WebDriver (the DevTools protocol, which the page's policy does not
    # govern): the page itself runs only cards.js.
    chrome.execute_script("""
var views = JSON.parse(document.getElementById("p2p10-data").textContent);
views.forEach(function (v) {
  document.getElementById("hand").appendChild(P2P10.card(v));
  document.getElementById("melds").appendChild(P2P10.card(v, {small: true}));
});
document.getElementById("hand").appendChild(P2P10.back("hidden"));""")
    drawn = chrome.execute_script(
        "return Array.from(document.querySelectorAll('#hand [role=img]')).map("
        "e => [e.getAttribute('aria-label'), e.dataset.card, e.dataset.id || null,"
        " e.getBoundingClientRect().width])")
    assert [row[:3] for row in drawn] == [[v["words"], v["text"], str(v["id"])] for v in views] + [
        ["hidden", "?", None]]
    assert all(row[3] > 40 for row in drawn)
    small = chrome.execute_script(
        "return document.querySelector('#melds svg').getBoundingClientRect().width")
    assert small < drawn[0][3]
    shot(chrome, tmp_path, "cards-desktop")
    phone(chrome)
    shot(chrome, tmp_path, "cards-phone")
    errors = [entry for entry in chrome.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
