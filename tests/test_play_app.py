"""The terminal table, driven by keystrokes through prompt_toolkit's pipe input and a dummy output.

Whole hands are played by keys: a greedy bot decides each of the user's moves, and the test types
it (d, t, l, the cursor and h or x, a meld's letter, a Skip's digit), then checks the table took
exactly that move. Refused keys must say why and change nothing; the saved log must audit clean.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Point, Size
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.utils import get_cwidth

from cli.table.drawing import clip
from cli.table.play import TableApp
from cli.table.replay_view import ReplayApp
from p2p10.audit import audit_bytes
from p2p10.bots import POLICIES
from p2p10.cards import card_text, is_skip
from p2p10.events import DrawStock, Hit, LayDown, SeatEvent, TakeDiscard
from p2p10.log import read_records
from p2p10.moves import discard_targets
from p2p10.rules import RuleSet
from protocol.local import USER, LocalTable


class Terminal(DummyOutput):
    """A dummy output of a size the test sets (and changes, as a resized window does)."""

    def __init__(self, columns: int = 80, rows: int = 24) -> None:
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


KEYS = {"→": "\x1b[C", "←": "\x1b[D", "↑": "\x1b[A", "↓": "\x1b[B", "Enter": "\r", "Space": " "}


class Keyboard:
    """Types keys into a running :class:`TableApp` and waits for each to be handled."""

    def __init__(self, app: TableApp, pipe: PipeInput) -> None:
        self.app = app
        self.local = app.table_seat
        self.pipe = pipe
        self.handled = 0
        app.app.key_processor.after_key_press += self._counted

    def _counted(self, _processor: object) -> None:
        self.handled += 1  # a key was handled, by the table's keys or by a line being typed

    async def until(self, condition: Callable[[], bool], seconds: float = 20) -> None:
        deadline = asyncio.get_running_loop().time() + seconds
        while not condition():
            assert asyncio.get_running_loop().time() < deadline, f"timed out; the screen:\n{self.screen()}"
            await asyncio.sleep(0.005)

    async def keys(self, *keys: str) -> None:
        for key in keys:
            before = self.handled
            self.pipe.send_text(KEYS.get(key, key))
            await self.until(lambda: self.handled > before)  # noqa: B023 - awaited at once

    def screen(self) -> str:
        return self.app.screen_text()

    def entries(self) -> int:
        return len(self.local.user.log)

    def my_turn(self) -> bool:
        return self.local.my_turn() and self.app.screen == "table"


@asynccontextmanager
async def table(folder: Path, bots: int = 1, seed: int = 3, options: tuple[str, ...] = ("hands=1",),
                ascii_only: bool = False, terminal: Terminal | None = None,
                name: str = "Ann") -> AsyncIterator[Keyboard]:
    """A running table at seat 0 against ``bots`` bots that move at once."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=terminal or Terminal()):
        local = LocalTable(name, bots, "normal", RuleSet.parse(options), seed, save_dir=folder, pace=0)
        async with running(TableApp(local, ascii_only=ascii_only), local, pipe) as keyboard:
            yield keyboard


@asynccontextmanager
async def running(app: TableApp, local: LocalTable, pipe: PipeInput) -> AsyncIterator[Keyboard]:
    """``app`` running on ``local``, typed to through ``pipe``; quit and closed afterwards."""
    task = asyncio.create_task(app.run())
    keyboard = Keyboard(app, pipe)
    try:
        yield keyboard
    finally:
        app.quit()
        await task
        local.close()


async def type_move(kb: Keyboard, move: SeatEvent, asked: list[str]) -> None:
    """Type the keys of one move (the cursor is moved onto the card first); the questions the
    table asked on the way go to ``asked``."""
    app = kb.app
    if isinstance(move, DrawStock):
        await kb.keys("d")
        return
    if isinstance(move, TakeDiscard):
        await kb.keys("t")
        return
    if isinstance(move, LayDown):
        await kb.keys("l")
        return
    state = kb.local.view()
    slots = app.hand_slots(state)
    await kb.keys(*["→"] * ((slots.index(move.slot) - app.cursor) % len(slots)))
    if isinstance(move, Hit):
        await kb.keys("h")
        if app.prompt is not None and "which meld" in app.prompt.question:
            asked.append("which meld")
            await kb.keys(chr(ord("a") + move.meld))
        if app.prompt is not None and "Which end" in app.prompt.question:
            asked.append("which end")
            await kb.keys("<" if move.end == "low" else ">")
    else:
        await kb.keys("x")
        if app.prompt is not None:
            assert move.target is not None and "Skip whom?" in app.prompt.question
            asked.append("whom")
            # The choices are numbered 1, 2, ... as they read, not by seat.
            number = str(discard_targets(state, USER, move.card).index(move.target) + 1)
            assert f"{number} {app.spoken[move.target]}" in kb.screen()
            await kb.keys(number)


async def play_by_keys(kb: Keyboard, moves: list[str], asked: list[str]) -> None:
    """Play the user's seat to the end of the game with a greedy bot's moves, typed; the kinds
    of move go to ``moves``, the table's questions to ``asked``."""
    rng = random.Random(5)
    local, app = kb.local, kb.app
    while True:
        await kb.until(lambda: kb.my_turn() or local.over or app.screen == "hand")
        if app.screen == "hand":
            assert "is over" in kb.screen()
            await kb.keys("Enter")
            continue
        if local.over:
            return
        view = local.view()
        move = POLICIES["greedy"](view, USER, rng)
        before = kb.entries()
        await type_move(kb, move, asked)
        await kb.until(lambda: kb.entries() > before)  # noqa: B023 - awaited at once
        # Exactly the move typed, no other: the user's next entry in the log is that move.
        entry = local.user.log[before]
        assert entry.author == USER and entry.kind == "move"
        expected = body_of(move)
        assert entry.body[1:1 + len(expected)] == expected, (move, entry.body[:5])
        moves.append(type(move).__name__)


def body_of(move: SeatEvent) -> list[object]:
    """The start of a move entry's body (after the hand number), as ``Peer.build_move`` writes it."""
    if isinstance(move, DrawStock):
        return ["draw"]
    if isinstance(move, TakeDiscard):
        return ["take"]
    if isinstance(move, LayDown):
        return ["lay", move.phase, [[list(m.slots), m.label] for m in move.melds]]
    if isinstance(move, Hit):
        return ["hit", move.slot, move.meld, move.end]
    return ["discard", move.slot, move.target]


async def test_a_draw_key_makes_eleven_cards_and_a_discard_key_ten(tmp_path: Path) -> None:
    async with table(tmp_path) as kb:
        await kb.until(kb.my_turn)
        assert len(kb.local.view().hands[USER]) == 10
        await kb.keys("d")
        await kb.until(lambda: kb.my_turn() and kb.local.view().stage == "play")
        view = kb.local.view()
        assert len(view.hands[USER]) == 11
        drawn = view.hands[USER][-1]
        assert kb.app.hand_slots(view)[kb.app.cursor] == drawn  # the cursor is on the new card
        assert any(line.startswith("You drew ") for line in kb.app.narrator.lines)
        if is_skip(view.known[drawn]):
            await kb.keys("→")
        await kb.keys("x")
        await kb.until(lambda: len(kb.local.view().hands[USER]) == 10)
        assert "You discarded" in kb.screen()


async def test_refused_keys_say_why_and_change_nothing(tmp_path: Path) -> None:
    async with table(tmp_path) as kb:
        await kb.until(kb.my_turn)
        entries, view = kb.entries(), kb.local.view()
        for key, reason in (("x", "Draw a card first"), ("l", "Draw a card first"),
                            ("h", "Draw a card first"), ("L", "Draw a card first")):
            await kb.keys(key)
            assert reason in kb.screen(), (key, kb.screen())
        assert kb.entries() == entries and kb.local.view().hands == view.hands
        await kb.keys("d")
        await kb.until(lambda: kb.my_turn() and kb.local.view().stage == "play")
        entries = kb.entries()
        await kb.keys("t")
        assert "You have already drawn this turn" in kb.screen()
        await kb.keys("h")
        assert "Lay down your own phase before you hit" in kb.screen()
        await kb.keys("Space", "→", "Space", "l")  # two cards never make a phase
        assert "The selected cards do not make phase 1" in kb.screen()
        assert kb.entries() == entries


async def test_whole_hands_by_keystrokes_reach_the_end_screen_and_the_log_audits_clean(
        tmp_path: Path) -> None:
    moves: list[str] = []
    async with table(tmp_path, bots=2, seed=21, options=("hands=2",)) as kb:
        await play_by_keys(kb, moves, [])
        await kb.until(lambda: kb.app.screen == "over")
        screen = kb.screen()
        assert "Game over:" in screen and "Total" in screen
        assert len(kb.local.view().sheet) == 2
        lines = kb.app.narrator.lines
        assert any("Hand 2 over" in line for line in lines)
        await kb.keys("Enter")  # leaves
        path = kb.local.log_path
    assert {"DrawStock", "Discard"} <= set(moves)
    report = audit_bytes(path.read_bytes())
    assert report.clean, report.verdict()


async def test_every_kind_of_move_by_keys(tmp_path: Path) -> None:
    # A seed where the user draws, takes, lays down, hits (choosing a meld by its letter) and
    # throws a Skip (choosing whom by a digit), all typed.
    moves: list[str] = []
    asked: list[str] = []
    async with table(tmp_path, bots=2, seed=27, options=("hands=1",)) as kb:
        await play_by_keys(kb, moves, asked)
        assert kb.local.view().sheet[-1].made[USER]
        await kb.keys("Enter")
        path = kb.local.log_path
    assert set(moves) == {"DrawStock", "TakeDiscard", "LayDown", "Hit", "Discard"}
    assert {"which meld", "whom"} <= set(asked)
    assert audit_bytes(path.read_bytes()).clean


async def test_side_screens_sort_and_quit(tmp_path: Path) -> None:
    async with table(tmp_path, bots=2, options=("skip=next", "hands=3")) as kb:
        await kb.until(kb.my_turn)
        await kb.keys("s")
        assert "Score sheet" in kb.screen() and "Bot 2 (normal)" in kb.screen()
        await kb.keys("r")
        assert "[x] skip=next" in kb.screen() and "[x] hands=3" in kb.screen()
        await kb.keys("?")
        assert "lay down your phase" in kb.screen()
        await kb.keys("Enter")
        assert kb.app.screen == "table"
        view = kb.local.view()
        by_number = [view.known[s] for s in kb.app.hand_slots(view)]
        await kb.keys("o")
        by_colour = [view.known[s] for s in kb.app.hand_slots(view)]
        assert sorted(by_number) == sorted(by_colour) and "Sorted by colour" in kb.screen()
        await kb.keys("q")
        assert "Quit the game?" in kb.screen()
        await kb.keys("n")
        assert kb.app.prompt is None and not kb.app.app.is_done
        await kb.keys("q", "y")
        path = kb.local.log_path
    report = audit_bytes(path.read_bytes())
    assert report.violation is None and not report.complete  # a quit game keeps a sound log


async def test_ascii_draws_no_box_characters_and_names_cards_in_notation(tmp_path: Path) -> None:
    async with table(tmp_path, ascii_only=True) as kb:
        await kb.until(kb.my_turn)
        await kb.keys("Space")  # a selected card is drawn raised, in text too
        for screen in ("table", "help", "rules", "sheet"):
            kb.app.screen = screen
            text = kb.screen()
            assert not [c for c in text if ord(c) > 127], text
        kb.app.screen = "table"
        view = kb.local.view()
        rows = kb.screen().splitlines()
        hand = next(i for i, row in enumerate(rows) if "^" in row and "Draw pile" not in row)
        shown = (rows[hand - 2] + " " + rows[hand - 1]).split()
        assert sorted(shown) == sorted(card_text(view.known[s]) for s in view.hands[USER])


def click_on(fragments: StyleAndTextTuples, text: str) -> None:
    """Click the first fragment showing ``text`` that answers clicks."""
    for fragment in fragments:
        if text in fragment[1] and len(fragment) == 3:
            fragment[2](MouseEvent(Point(0, 0), MouseEventType.MOUSE_UP, MouseButton.LEFT, frozenset()))
            return
    raise AssertionError(f"nothing clickable shows {text!r}")


async def test_mouse_clicks_draw_select_and_discard(tmp_path: Path) -> None:
    async with table(tmp_path) as kb:
        await kb.until(kb.my_turn)
        app = kb.app
        click_on(app._left_text(), "Draw pile")
        await kb.until(lambda: kb.my_turn() and kb.local.view().stage == "play")
        view = kb.local.view()
        first = app.hand_slots(view)[0]
        hand = [fragment for line in app.hand_lines(view, app.left_width()) for fragment in line]
        click_on(hand, card_text(view.known[first]))
        assert app.selected == {first} and app.cursor == 0
        click_on(app._footer_text(), " x ")  # one bot: a Skip needs no question
        await kb.until(lambda: len(kb.local.view().hands[USER]) == 10)
        assert first not in kb.local.view().hands[USER]


async def test_the_table_fits_the_terminal_and_follows_a_resize(tmp_path: Path) -> None:
    terminal = Terminal(80, 24)
    async with table(tmp_path, bots=5, seed=2, options=("hands=1",), terminal=terminal) as kb:
        await kb.until(kb.my_turn)
        app = kb.app
        for columns, rows in ((80, 24), (120, 40), (60, 20), (80, 24)):
            terminal.size = Size(rows=rows, columns=columns)
            left = app.drawn(app._left_text())
            lines = "".join(f[1] for f in left).split("\n")
            assert len(lines) <= app.body_rows() and max(map(len, lines)) <= app.left_width()
            footer = "".join(f[1] for f in app._footer_text()).split("\n")
            assert max(map(len, footer)) <= columns and app.body_rows() + 1 + len(footer) == rows
            assert ("Moves" in "".join(f[1] for f in app._log_text())) == (columns >= 72)
            for seat in range(1, 6):
                assert f"Bot {seat} (normal)" in "\n".join(lines)


async def test_a_wide_name_keeps_the_columns_aligned_and_is_never_cut_through(tmp_path: Path) -> None:
    """A name in wide characters (two columns each) is measured in columns: every line fits its
    pane, a line cut to fit ends before a wide character rather than in it, and the score
    sheet's columns stay aligned."""
    name = "山田" * 10  # 20 characters, 40 columns
    terminal = Terminal(60, 24)
    async with table(tmp_path, terminal=terminal, name=name) as kb:
        await kb.until(kb.my_turn)
        app = kb.app
        for columns in range(35, 121, 7):
            terminal.size = Size(rows=24, columns=columns)
            log = max(app._log_width() - 1, 0)
            for text, limit in ((app._left_text(), app.left_width()), (app._log_text(), log),
                                (app._status_text(), columns), (app._footer_text(), columns)):
                for line in "".join(f[1] for f in text).split("\n"):
                    assert get_cwidth(line) <= limit, (columns, line)
        terminal.size = Size(rows=24, columns=35)  # a pane of 35 columns: the name is cut
        rows = "".join(f[1] for f in app._left_text()).split("\n")
        mine = rows[next(i for i, row in enumerate(rows) if row.startswith("──")) + 1]
        assert mine[2:] == name[:16] and get_cwidth(mine) == 34  # not half of the 17th character
        assert clip([("", "ab山田")], 3) == [("", "ab")] and clip([("", "ab山田")], 4) == [("", "ab山")]
        terminal.size = Size(rows=24, columns=80)  # names of 16 columns on the score sheet
        await kb.keys("s")
        sheet = [row for row in kb.screen().splitlines() if row.startswith((" Hand ", " Total", " Made"))]
        assert len(sheet) == 3 and len({get_cwidth(row) for row in sheet}) == 1, sheet
        assert name[:8] in sheet[0]


def test_the_dealing_shows_progress_before_the_first_hand(tmp_path: Path) -> None:
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        local = LocalTable("Ann", 3, "normal", RuleSet(), 1, save_dir=tmp_path, pace=0)
        app = TableApp(local)
        local.start()
        local.step()
        assert local.dealing() is not None
        note = app.piles_note()
        assert note is not None and "Shuffling and dealing" in "".join(f[1] for f in note)
        local.close()


async def test_replay_viewer_steps_by_move_and_hand_as_a_seat_or_a_spectator(tmp_path: Path) -> None:
    local = LocalTable("Ann", 1, "greedy", RuleSet.parse(["hands=2"]), 9, save_dir=tmp_path, pace=0)
    local.run_to_end(POLICIES["greedy"])
    local.close()
    records = read_records(local.log_path.read_bytes()).items
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        viewer = ReplayApp(records, seat=0)
        assert viewer.at == 0
        viewer.press("→")
        assert viewer.at == 1 and viewer.state().hand_no == 0
        assert viewer.hand_slots(viewer.state())  # seat 1 sees its own cards
        viewer.press("↓")
        assert viewer.state().hand_no == 1
        viewer.press("↑")
        assert viewer.state().hand_no == 0
        viewer.press("end")
        assert viewer.state().winner is not None and "over" in viewer.log_lines()[-1].lower()
        viewer.press("0")
        assert viewer.me is None and not viewer.hand_slots(viewer.state())
        assert "spectator" in viewer.screen_text()


def test_play_without_a_terminal_exits_2_with_a_message() -> None:
    result = subprocess.run([sys.executable, "-m", "cli", "play"], capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 2
    assert result.stderr.startswith("p2p10: play needs a terminal") and "Traceback" not in result.stderr


async def test_a_quit_asked_as_the_game_ends_leaves_at_once(tmp_path: Path) -> None:
    """The user asks to quit (q) and, before answering, the game ends (its last hand is over,
    the last summary comes): the screen leaves then, as asked (the result is printed on the
    way out), and a "y" typed after it does not fall on the end screen, where it does nothing.
    (Seen as a race in the terminal test: the last summary took the question away first.)"""
    async with table(tmp_path) as kb:
        await kb.until(kb.my_turn)
        await kb.keys("q")
        assert kb.app.prompt is not None and "Quit the game?" in kb.app.prompt.question
        rng = random.Random(5)
        while not kb.local.over:  # the user's moves, made past the question on the screen
            await kb.until(lambda: kb.local.over or kb.local.my_turn())
            if kb.local.my_turn():
                kb.local.play(POLICIES["greedy"](kb.local.view(), USER, rng))
        # Left: exiting (is_done), or exited already (prompt_toolkit forgets the future once its
        # run is over, and is_done is False again then: waiting for it alone was a race).
        await kb.until(lambda: kb.app.app.is_done or not kb.app.app.is_running)
