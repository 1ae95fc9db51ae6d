"""The seat model alone (:mod:`cli.seat`), with no front end drawing it: what it says and does
is what both the terminal and the page show."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from cli.seat.play import PlaySeat, follow_table
from p2p10.bots import POLICIES
from p2p10.rules import RuleSet
from protocol.local import USER, LocalTable


async def test_while_a_hand_is_dealt_the_title_names_that_hand(tmp_path: Path) -> None:
    """The game's view holds the hand that ended until the next is dealt: the title names the
    hand being set up, not the last one ("Hand 2 shuffling and dealing...", never "Hand 1")."""
    local = LocalTable("Ann", 1, "greedy", RuleSet.parse(["hands=2"]), seed=5, save_dir=tmp_path, pace=0)
    app = PlaySeat(local)
    seen: list[tuple[int, str]] = []

    def look() -> None:
        table = local.table
        if local.dealing() is not None and table is not None and table.hand is not None:
            seen.append((table.hand.number + 1, app.title_view(app.state()).hand[0].strip()))

    local.subscribe(look)
    following = asyncio.create_task(follow_table(app))
    rng = random.Random(5)
    try:
        for _ in range(20_000):
            if local.over:
                break
            if app.hold:
                app.press("Enter")  # a hand's summary read
            elif local.my_turn():
                local.play(POLICIES["greedy"](local.view(), USER, rng))
            await asyncio.sleep(0)
    finally:
        app.quit()
        await following
        local.close()
    assert local.over
    hands = {number for number, _title in seen}
    assert hands == {1, 2}, seen
    assert all(title == f"Hand {number}" for number, title in seen), seen
