"""The play screen's helpers, typed through prompt_toolkit's pipe input as a player types them:
the hint key, the question before a Wild is thrown away, the bots' pace, a resumed game's move
log, Enter after a hand's summary, the title at any width, the lay-down chooser, and the status
line that neither goes stale nor misses a Skip on the player."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cli.table.play import TableApp
from p2p10.advice import advise
from p2p10.bots import POLICIES
from p2p10.cards import card_text, is_wild
from p2p10.events import Discard
from p2p10.moves import wild_given_away
from protocol.lan import LanSeat
from protocol.local import USER, LocalTable
from protocol.seat_screen import PACES, next_pace
from tests.test_moves import A_DEAL, run_scenario_steps
from tests.test_play_app import Keyboard, Terminal, body_of, table, type_move


def status(kb: Keyboard) -> str:
    return "".join(f[1] for f in kb.app._status_text()).strip()


def title(kb: Keyboard) -> str:
    """The title as the table pane shows it."""
    return "".join(f[1] for f in kb.app._left_text()).split("\n")[0]


async def play_until(kb: Keyboard, stop: Callable[[], bool], rng: random.Random,
                     each_turn: Callable[[], None] = lambda: None) -> None:
    """Type a greedy bot's moves for the user until ``stop`` holds (checked whenever the user
    may act, a hand's summary or the end is shown); ``each_turn`` sees the screen at the start
    of each of the user's turns."""
    local, app = kb.local, kb.app
    while True:
        await kb.until(lambda: kb.my_turn() or local.over or app.screen == "hand")
        if stop() or local.over or app.screen == "hand":
            return
        if local.view().stage == "draw":
            each_turn()
        move = POLICIES["greedy"](local.view(), USER, rng)
        before = kb.entries()
        await type_move(kb, move, [])
        if app.prompt is not None and "Discard a Wild?" in app.prompt.question:
            await kb.keys("y")
        await kb.until(lambda: kb.entries() > before)  # noqa: B023 - awaited at once


# ------------------------------------------------------------------------ the hint key


async def test_the_hint_key_says_what_the_strong_bot_would_do_and_plays_nothing(tmp_path: Path) -> None:
    async with table(tmp_path) as kb:
        await kb.until(kb.my_turn)
        entries, view = kb.entries(), kb.local.view()
        await kb.keys("i")
        assert kb.local.table is not None
        expected = advise(view, USER, kb.app.spoken, random.Random(kb.local.table.seq))
        assert status(kb) == f"Hint: {expected.reason}.", status(kb)
        assert kb.entries() == entries and kb.local.view().hands == view.hands  # nothing played
        assert " i " in "".join(f[1] for f in kb.app._footer_text()) and "hint" in kb.screen()
        # Out of turn: why there is none. (The bot takes its time, so its turn can be seen.)
        kb.local.set_pace(2.5)
        await kb.keys("d")
        await kb.until(lambda: kb.my_turn() and kb.local.view().stage == "play")
        card = kb.local.view().known[kb.app.hand_slots(kb.local.view())[kb.app.cursor]]
        await kb.keys(*["→"] * is_wild(card), "x")
        await kb.until(lambda: not kb.local.my_turn())
        await kb.keys("i")
        assert status(kb) == "No hint: it is Bot 1's turn, not yours.", status(kb)


# ---------------------------------------------------------------- discarding a Wild


async def test_a_wild_is_discarded_only_once_confirmed(tmp_path: Path) -> None:
    async with table(tmp_path, seed=1) as kb:  # seed 1: Ann holds a Wild
        await kb.until(kb.my_turn)
        await kb.keys("d")
        await kb.until(lambda: kb.my_turn() and kb.local.view().stage == "play")
        view = kb.local.view()
        slots = kb.app.hand_slots(view)
        wild = next(s for s in slots if is_wild(view.known[s]))
        await kb.keys(*["→"] * ((slots.index(wild) - kb.app.cursor) % len(slots)), "x")
        entries = kb.entries()
        assert kb.app.prompt is not None
        assert "Discard a Wild? Bot 1 may take it." in kb.screen()
        await kb.keys("n")
        assert kb.entries() == entries and wild in kb.local.view().hands[USER]
        assert status(kb) == "You kept the Wild."
        await kb.keys("x", "y")
        await kb.until(lambda: kb.entries() > entries)
        assert kb.local.user.log[entries].body[1:1 + 3] == body_of(Discard(USER, wild, 0))
        assert wild not in kb.local.view().hands[USER]


# ------------------------------------------------------------------------ the pace


def test_the_paces_step_both_ways_and_stop_at_the_ends() -> None:
    assert [next_pace(p, faster=False) for p in PACES] == [*PACES[1:], PACES[-1]]
    assert [next_pace(p, faster=True) for p in PACES] == [PACES[0], *PACES[:-1]]
    assert next_pace(0.45, faster=True) == 0.3 and next_pace(0.45, faster=False) == 0.6


async def test_plus_and_minus_set_the_bots_pace_even_while_a_bot_waits(tmp_path: Path) -> None:
    async with table(tmp_path) as kb:
        await kb.until(kb.my_turn)
        await kb.keys("-", "-", "-")
        assert kb.local.pace == 1.2 and status(kb) == "Bots wait 1.2 s per move."
        await kb.keys("-", "-")
        assert kb.local.pace == 2.5 and status(kb) == "Bots wait 2.5 s per move."
        assert " + " in "".join(f[1] for f in kb.app._footer_text())
        # A bot that would wait an hour, longer than this test waits for anything: that it
        # moves once the pace is stepped down to 0 shows the wait follows the new pace, with
        # no clock in the test.
        kb.local.set_pace(3600.0)
        await kb.keys("d")
        await kb.until(lambda: kb.my_turn() and kb.local.view().stage == "play")
        view = kb.local.view()
        card = view.known[kb.app.hand_slots(view)[kb.app.cursor]]
        await kb.keys(*["→"] * is_wild(card), "x")
        await kb.until(lambda: not kb.local.my_turn())
        await asyncio.sleep(0.3)
        assert not kb.local.my_turn() and "Bot 1 is playing..." in title(kb)  # the bot waits
        await kb.keys("+")
        assert kb.local.pace == 2.5  # an hour steps down to the slowest
        await kb.keys("+", "+", "+", "+")
        assert kb.local.pace == 0 and status(kb) == "Bots move at once."
        await kb.until(lambda: kb.my_turn() or kb.app.screen != "table")


class FarAwayBots(LocalTable):
    """A table whose bots' pace is not this machine's to set, as at a LAN table."""

    @property  # type: ignore[override]
    def pace(self) -> None:
        return None

    @pace.setter
    def pace(self, seconds: float) -> None:
        pass

    async def _bot_thinks(self, changed: asyncio.Event) -> None:
        await asyncio.sleep(0)


async def test_the_pace_keys_say_so_where_the_pace_is_not_this_machines(tmp_path: Path) -> None:
    assert LanSeat.pace.fget(None) is None  # type: ignore[attr-defined]
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal()):
        local = FarAwayBots("Ann", 1, "normal", None, 3, save_dir=tmp_path, pace=0)
        app = TableApp(local)
        task = asyncio.create_task(app.run())
        kb = Keyboard(app, pipe)
        try:
            await kb.until(kb.my_turn)
            await kb.keys("+")
            assert status(kb) == "The bots' pace is not this machine's to set."
        finally:
            app.quit()
            await task
            local.close()


# -------------------------------------------------------------- a resumed game's story


async def test_a_resumed_game_tells_the_moves_as_they_were_told(tmp_path: Path) -> None:
    turns = 0

    def count() -> None:
        nonlocal turns
        turns += 1

    async with table(tmp_path, bots=2, seed=21, options=("hands=2",)) as kb:
        await play_until(kb, lambda: turns >= 4, random.Random(5), count)
        assert kb.my_turn()
        told = kb.app.log_lines()
        path = kb.local.log_path
    assert any(line.startswith("You drew ") and "a card" not in line for line in told)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        resumed = LocalTable.resume(path)
        try:
            assert TableApp(resumed).log_lines() == told
        finally:
            resumed.close()


# ---------------------------------------------------------- Enter after a hand's summary


async def test_enter_pressed_once_too_often_after_a_summary_selects_no_card(tmp_path: Path) -> None:
    async with table(tmp_path, seed=21, options=("hands=2",)) as kb:
        await play_until(kb, lambda: False, random.Random(5))
        assert kb.app.screen == "hand"
        await kb.keys("Enter")
        await kb.until(lambda: kb.local.view().hand_no == 1 and kb.local.view().stage in ("draw", "play")
                       and kb.app.hand_slots(kb.local.view()) != [])
        await kb.keys("Enter")
        assert kb.app.selected == set()
        await kb.keys("Space")  # Space still selects
        assert len(kb.app.selected) == 1
        assert "Space ↑" in "\n".join(e[0] for e in kb.app.help_text if isinstance(e, tuple))


# ---------------------------------------------------------------------------- the title


async def test_the_title_fits_shortened_by_priority_never_cut_through_a_word(tmp_path: Path) -> None:
    terminal = Terminal(80, 24)
    async with table(tmp_path, terminal=terminal, name="Maximiliana1") as kb:
        await kb.until(kb.my_turn)
        app = kb.app
        shown = {}
        for columns in (120, 80, 44, 40, 26):
            terminal.size = Size(rows=24, columns=columns)
            line = title(kb)
            assert len(line) <= app.left_width(), (columns, line)
            shown[columns] = line.split()
        full = ["Hand", "1", "Your", "turn:", "draw", "a", "card", "(d", "or", "t)"]
        assert shown[120] == [*full, "(hands=1)"] and shown[80] == [*full, "(hands=1)"]
        assert shown[44] == full  # the rules go first
        assert shown[40] == ["Hand", "1", "Your", "turn:", "d", "or", "t"]  # then the words are abbreviated
        terminal.size = Size(rows=24, columns=26)
        assert title(kb).split() == ["H1", "Your", "turn:", "d", "or", "t"]  # then the hand's
        # Another player's turn (the bot takes its time, so that it can be seen).
        kb.local.set_pace(2.5)
        terminal.size = Size(rows=24, columns=80)
        await kb.keys("d")
        await kb.until(lambda: kb.my_turn() and kb.local.view().stage == "play")
        view = kb.local.view()
        card = view.known[app.hand_slots(view)[app.cursor]]
        await kb.keys(*["→"] * is_wild(card), "x")
        await kb.until(lambda: not kb.local.my_turn())
        for columns, words in ((120, "Hand 1 Bot 1 is playing... (hands=1)"),
                               (80, "Hand 1 Bot 1 is playing... (hands=1)"),
                               (24, "Hand 1 Bot 1 plays"), (18, "H1 Bot 1 plays")):
            terminal.size = Size(rows=24, columns=columns)
            assert title(kb).split() == words.split(), (columns, title(kb))


# ------------------------------------------------------------------- the lay-down chooser


async def test_the_lay_down_chooser_lists_no_two_choices_alike(tmp_path: Path) -> None:
    async with table(tmp_path, seed=25) as kb:  # seed 25: six ways to lay phase 1 down
        await kb.until(kb.my_turn)
        await kb.keys("d")
        await kb.until(lambda: kb.my_turn() and kb.local.view().stage == "play")
        await kb.keys("L")
        prompt = kb.app.prompt
        assert prompt is not None and len(prompt.choices) > 2
        labels = [choice.label for choice in prompt.choices]
        assert len(set(labels)) == len(labels), labels
        assert all(", keeps " in label for label in labels[1:]), labels


# --------------------------------------------------------------------- the status line


async def test_the_status_line_says_a_skip_on_the_player_and_goes_at_the_end(tmp_path: Path) -> None:
    skips_seen: list[str] = []
    last = [0]  # the moves of the hand before the user's previous turn

    def check_skips() -> None:
        view = kb.local.view()
        history = view.history[last[0]:] if len(view.history) >= last[0] else view.history
        if any(m.action == "discard" and m.target == USER and m.seat != USER for m in history):
            skips_seen.append(status(kb))
        last[0] = len(view.history)

    async with table(tmp_path, seed=3) as kb:  # seed 3: Bot 1 skips Ann
        await play_until(kb, lambda: False, random.Random(5), check_skips)
        assert skips_seen and all(s == "Bot 1 skipped you." for s in skips_seen), skips_seen
        await kb.until(lambda: kb.app.screen == "over")
        assert status(kb) == ""  # not the user's last move under "Game over"


async def test_the_status_line_is_cleared_when_a_hands_summary_opens(tmp_path: Path) -> None:
    async with table(tmp_path, seed=21, options=("hands=2",)) as kb:
        await play_until(kb, lambda: False, random.Random(5))
        assert kb.app.screen == "hand" and status(kb) == ""


def test_a_wild_thrown_away_is_for_the_next_player_to_take() -> None:
    state = run_scenario_steps({**A_DEAL, "A": "R7 B7 G7 R4 B5 G6 Y7 R3 W W"}, "A draw")
    hand = {card_text(state.known[s]): s for s in state.hands[0]}
    assert wild_given_away(state, 0, hand["W"]) == 1  # B draws next
    assert wild_given_away(state, 0, hand["R3"]) is None
    assert wild_given_away(state, 1, hand["W"]) is None  # not B's card, nor B's turn
