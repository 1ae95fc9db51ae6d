"""Issue 25, a LAN game in progress as a seat sees it (points 2, 3 and 8): a drawn card that
waits for an away player's key, a hand's summary left open while the next hand goes on, and
going on without a player (said before it is agreed, and a quit said as a quit)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input

from cli.table.drawing import BOX_BOTTOM, HEAVY_BOTTOM
from protocol.lan import Joiner, Timing
from tests.test_lan_screen import TIMEOUT, Screens, open_host
from tests.test_play_app import Keyboard, Terminal


def one_line(text: str) -> str:
    """The screen's words with its line breaks and runs of spaces as single spaces."""
    return " ".join(text.split())


async def test_a_card_waiting_for_an_away_players_key_is_shown_as_pending(tmp_path: Path) -> None:
    """Point 3: Cy's machine is gone and Ann draws: her card needs Cy's key. Her screen still
    says it is her turn, counts and shows the card as coming (11 cards: 10 and one on its way),
    says whose key it waits for and when the table may go on without Cy, and the hint key
    says so too instead of claiming the table does not know her cards."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal(120, 30)):
        screens = Screens()
        apps = screens.apps
        _host, hosting, address, _said = await open_host(tmp_path, 3, None, front=screens.front,
                                                         timing=Timing(away_after=300.0))
        bob = Joiner(address, "Bob", "greedy", "127.0.0.1", tmp_path / "bob", say=lambda _: None)
        cy = Joiner(address, "Cy", "greedy", "127.0.0.1", tmp_path / "cy", say=lambda _: None)
        tasks = [hosting, asyncio.ensure_future(bob.run()), asyncio.ensure_future(cy.run())]
        try:
            await asyncio.wait_for(_until_apps(apps), TIMEOUT)
            kb = Keyboard(apps[0], pipe)
            await kb.until(kb.my_turn, TIMEOUT)
            tasks[2].cancel()  # Cy's machine is gone
            await asyncio.gather(tasks[2], return_exceptions=True)
            await kb.keys("d")  # the drawn card needs Cy's share of the key
            await kb.until(lambda: "Cy is out of reach" in kb.screen(), TIMEOUT)
            screen = kb.screen()
            words = one_line(screen)
            assert "Your turn" in screen, screen
            assert "11 cards" in words, screen
            assert screen.count(BOX_BOTTOM) + screen.count(HEAVY_BOTTOM) == 11, screen  # one pending
            assert "Your card is waiting for Cy's key" in words, screen
            assert "the table can go on without Cy in" in words, screen
            await kb.keys("i")
            words = one_line(kb.screen())
            assert "does not know your cards" not in words, words
            assert "No hint yet: your card is waiting for Cy's key" in words, words
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


async def _until_apps(apps: list[object]) -> None:
    while not apps:
        await asyncio.sleep(0.01)
