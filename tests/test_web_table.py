"""The browser's table is the terminal's table: one model (:class:`cli.seat.play.PlaySeat`),
two drawings.

:class:`cli.web.table_screen.TableScreen` is driven here without a browser, drawing the model of
a terminal's table (:class:`cli.table.play.TableApp` is a ``PlaySeat``): its snapshot must say
what the terminal's screen says (the same title, hand, seats, question and keys), and anything
the page sends that is not a key or a click the table knows changes nothing and raises nothing.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import DummyInput

from cli.seat.play import PlaySeat, follow_table
from cli.table.play import TableApp
from cli.web.table_screen import TableScreen
from p2p10.rules import RuleSet
from protocol.local import LocalTable
from tests.test_play_app import Terminal


@asynccontextmanager
async def screen(folder: Path, seed: int = 5, terminal: bool = True) -> AsyncIterator[TableScreen]:
    """A table against two bots that move at once, drawn by a TableScreen, on the user's turn:
    the model of a terminal's table (to compare the two drawings), or (``terminal`` False) the
    model alone, as ``play --web`` draws it."""
    with create_app_session(input=DummyInput(), output=Terminal(100, 40)):
        local = LocalTable("Ann", 2, "normal", RuleSet.parse(["hands=1"]), seed, save_dir=folder, pace=0)
        app = TableApp(local) if terminal else PlaySeat(local)
        table = TableScreen(app)
        task = asyncio.create_task(follow_table(app))
        try:
            for _ in range(2000):
                if local.my_turn():
                    break
                await asyncio.sleep(0.005)
            yield table
        finally:
            app.quit()
            await task
            local.close()


def words(snapshot: dict[str, Any]) -> str:
    return json.dumps(snapshot, ensure_ascii=False)


async def test_the_snapshot_says_what_the_terminal_shows(tmp_path: Path) -> None:
    async with screen(tmp_path) as table:
        app = table.app
        snap = table.snapshot()
        json.dumps(snap)  # plain JSON
        terminal = app.screen_text()
        # The hand: the same cards in the same order, the cursor where the terminal's is.
        state = app.state()
        assert state is not None
        shown = [c["card"]["text"] for c in snap["hand"]["cards"]]
        assert shown == [table_card(state, slot) for slot in app.hand_slots(state)]
        assert [c["cursor"] for c in snap["hand"]["cards"]].index(True) == app.cursor
        assert snap["hand"]["line"] in terminal.replace("\n", " ") or snap["hand"]["line"][:30] in terminal
        # Every seat's name and count as the terminal writes them; the keys lit as its footer.
        for seat in snap["seats"]:
            assert seat["name"] in terminal and seat["points_text"] in terminal
        assert [(k["key"], k["label"], k["enabled"]) for k in snap["keys"]] == app.key_items()
        # A key through the page is a key at the terminal: the same question, the same words.
        table.act({"type": "key", "key": "q"})
        asked = table.snapshot()["prompt"]
        assert asked is not None and asked["question"] in app.screen_text()
        table.act({"type": "pick", "index": 1})  # "no, play on"
        assert app.prompt is None and table.snapshot()["prompt"] is None


def table_card(state: Any, slot: int) -> str:
    from p2p10.cards import card_text

    return card_text(state.known[slot])


async def test_a_click_is_the_terminals_move(tmp_path: Path) -> None:
    async with screen(tmp_path, terminal=False) as table:
        app = table.app
        local = app.table_seat
        entries = len(local.user.log)
        table.act({"type": "pile", "pile": "draw"})
        await asyncio.sleep(0)
        assert len(local.user.log) > entries  # drawn
        state = app.state()
        assert state is not None and state.stage == "play"
        slot = app.hand_slots(state)[0]
        table.act({"type": "card", "slot": slot})
        assert slot in app.selected and table.snapshot()["hand"]["cards"][0]["raised"]
        table.act({"type": "card", "slot": slot})
        assert slot not in app.selected


@pytest.mark.parametrize("message", [
    {}, {"type": 7}, {"type": "key"}, {"type": "key", "key": 7}, {"type": "key", "key": "x" * 500},
    {"type": "card", "slot": "3"}, {"type": "card", "slot": 10_000}, {"type": "discard", "slot": -1},
    {"type": "meld", "id": 99}, {"type": "meld", "id": "A"}, {"type": "pick", "index": 5},
    {"type": "pile", "pile": "elsewhere"}, {"type": "sort", "by": "size"}, {"type": "size", "columns": 10**9},
    {"type": "chat", "text": "no chat here"}, {"type": "nothing"},
])
async def test_what_the_page_may_not_do_changes_nothing(tmp_path: Path, message: dict[str, Any]) -> None:
    """A message that is no key or click of the table's (or names a card not in the hand, a
    meld not on the table, an answer not asked) is ignored or refused in words, never a
    crash, and no move is made."""
    async with screen(tmp_path, terminal=False) as table:
        local = table.app.table_seat
        entries = len(local.user.log)
        before = table.snapshot()
        table.act(message)
        after = table.snapshot()
        assert len(local.user.log) == entries
        assert after["hand"] == before["hand"] and after["prompt"] == before["prompt"]


@pytest.mark.parametrize("text", [
    "", "not json", "[1, 2]", '"key"', "{}", '{"type": "key", "key": 7}', '{"type": "pick", "index": 9}',
    '{"type": "card", "slot": "3"}', "x" * 10_000, '{"type": "key", "key": "' + "x" * 5000 + '"}',
])
async def test_junk_from_a_phones_page_is_refused_as_from_the_servers_page(tmp_path: Path, text: str) -> None:
    """The page's own seat (cli.web.page_seat: a phone plays in its page) takes the page's
    messages as text: junk, wrong types, too long, is ignored, never a crash and never a move;
    a hello gets the view whole."""
    from cli.web.page_seat import PageSeat

    async with screen(tmp_path, terminal=False) as table:
        posted: list[str] = []
        seat = PageSeat(table.app, posted.append)
        local = table.app.table_seat
        entries = len(local.user.log)
        hand = table.snapshot()["hand"]
        seat.act(text)
        await asyncio.sleep(0)
        assert len(local.user.log) == entries and table.snapshot()["hand"] == hand
        seat.act('{"type": "hello"}')
        assert json.loads(posted[-1])["type"] == "view"
