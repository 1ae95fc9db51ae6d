"""The start screen in the browser is the menu the terminal draws too (:mod:`cli.seat.start`):
its rows, its checks, its choices."""

from __future__ import annotations

from pathlib import Path

from cli.game_settings import NewGame
from cli.seat.start import Continue, Listed, StartChoice, StartMenu
from cli.web.play_web import StartPage


def page(name: str, bots: int = 3) -> tuple[StartPage, list[StartChoice]]:
    screen = StartMenu(NewGame(name, bots),
                       unfinished=[Listed(Path("/saved/a.p2p10"), "yesterday: against Bot 1")],
                       record=["Won 1 of 2"])
    chosen: list[StartChoice] = []
    screen.on_finish.append(chosen.append)
    return StartPage(screen), chosen


def test_the_rows_and_the_settings_are_the_menus() -> None:
    start, chosen = page(name="Ann", bots=2)
    view = start.snapshot()
    keys = [row["key"] for row in view["rows"]]
    assert keys[:6] == ["start", "bots", "level", "game", "options", "name"]
    assert "continue" in keys and keys[-1] == "leave"
    assert [r["heading"] for r in view["rows"] if r["heading"]] == ["New game", "Unfinished games"]
    bots = keys.index("bots")
    start.act({"type": "row", "index": bots, "step": 1})
    assert start.screen.settings.bots == 3 and "3" in start.snapshot()["rows"][bots]["text"]
    start.act({"type": "row", "index": bots, "step": 1})
    start.act({"type": "row", "index": bots, "step": 1})
    start.act({"type": "row", "index": bots, "step": 1})
    assert start.screen.settings.bots == 5  # the menu's limit, not the page's
    assert chosen == []
    start.act({"type": "row", "index": keys.index("continue")})
    assert chosen == [Continue(Path("/saved/a.p2p10"))]


def test_a_bad_name_or_option_is_refused_with_the_menus_words() -> None:
    start, chosen = page(name="Ann")
    start.act({"type": "edit", "field": "name", "text": "\x1b[31mEve"})
    assert start.screen.settings.name == "Ann"
    assert "printable" in start.snapshot()["message"]["text"]
    start.act({"type": "edit", "field": "options", "text": "hands=zero"})
    assert start.screen.settings.options == () and start.snapshot()["message"]["tone"] == "error"
    start.act({"type": "edit", "field": "options", "text": "phases=even"})
    start.act({"type": "edit", "field": "name", "text": "  Bea  "})
    assert start.screen.settings.options == ("phases=even",) and start.screen.settings.name == "Bea"
    for junk in ({"type": "row", "index": 99}, {"type": "edit", "field": "path", "text": "/etc"},
                 {"type": "edit", "field": "name", "text": "x" * 5000}, {"type": "row"}):
        start.act(junk)
    assert chosen == []
    start.act({"type": "row", "index": 0})
    assert chosen == [NewGame("Bea", 3, "normal", ("phases=even",))]
