"""The table's screens at the sizes people use (80, 100, 120, 140 columns, and a narrow 60),
driven by keystrokes through prompt_toolkit's pipe input: a question in the status line, the
rules, the score sheet, the move log, the replay viewer and the LAN title each fit the terminal
without cutting a word, and every word a player reads goes through the translations."""

from __future__ import annotations

import asyncio
import gettext
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.utils import get_cwidth

from cli.seat.prompts import Choice, Prompt
from cli.table.board import Board
from cli.table.lan import LanTableApp
from cli.table.replay_view import ReplayApp
from p2p10 import i18n
from p2p10.bots import POLICIES
from p2p10.game_fields import HandResult
from p2p10.liveness import Waiting
from p2p10.log import read_records
from p2p10.rules import RuleSet
from protocol.local import LocalTable
from tests.test_play_app import KEYS, Keyboard, Terminal, running, table

LONG_NAME = "Maximiliane Mustermann-Schmidt"  # 30 of the 32 characters a name may have
WIDE_NAME = "山田花子" * 8  # 32 characters, 64 columns


def text(fragments: StyleAndTextTuples) -> str:
    return "".join(f[1] for f in fragments)


def words_of(*texts: str) -> set[str]:
    """Every whole word of ``texts``, also without the punctuation a shortened text drops."""
    out = set()
    for part in texts:
        for word in part.split():
            out |= {word, word.rstrip(",;:")}
    return out


def half_words(shown: str, *whole: str) -> list[str]:
    """The words of ``shown`` that are not whole words of ``whole`` (a word before "…" is one
    that was shortened at, which is fine, but it must be whole)."""
    known = words_of(*whole)
    return [w for w in shown.split() if w.rstrip("…") not in known and w != "…"]


class AwayTable(LocalTable):
    """A table of bots on this machine that says, as a LAN seat does, that it waits for a
    machine out of reach and who agreed to go on without it: the LAN screen's title and
    questions, without a network."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.chat_listeners: list[object] = []
        self.presence_listeners: list[object] = []
        self.away: Waiting | None = None
        self.agreements: dict[int, tuple[int, ...]] = {}

    def waiting(self) -> Waiting | None:
        return self.away

    def agreed(self) -> dict[int, tuple[int, ...]]:
        return self.agreements

    def presence(self, person: int) -> int:
        return 0  # at the table (PROTOCOL 6.2.2)

    def stop_reason(self) -> None:
        return None

    def go_on_without(self, person: int) -> None:
        self.agreements[person] = (self.seat,)


@asynccontextmanager
async def lan_table(folder: Path, terminal: Terminal, name: str) -> AsyncIterator[Keyboard]:
    """The LAN play screen at seat 0 of an :class:`AwayTable` of two bots."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=terminal):
        local = AwayTable(name, 2, "normal", RuleSet.parse(["hands=1"]), 3, save_dir=folder, pace=0)
        async with running(LanTableApp(local), local, pipe) as keyboard:  # type: ignore[arg-type]
            yield keyboard


async def offered_to_go_on(kb: Keyboard) -> None:
    """On the user's turn, the person at seat 0 away long enough that the table offers to go on
    without them (the longest question of the code)."""
    await kb.until(kb.my_turn)
    lan = kb.app.table_seat
    assert isinstance(lan, AwayTable)
    lan.away = Waiting(person=0, waited=150.0, away=150.0, offer=True)


# 1. A question in the status line


def check_prompt(app: LanTableApp, columns: int) -> str:
    """The status line holds the question (shortened at a word, if at all) and the current
    choice whole, in ``columns``; no word cut through."""
    prompt = app.prompt
    assert prompt is not None
    shown = text(app._status_text())
    assert all(get_cwidth(line) <= columns for line in shown.split("\n")), (columns, shown)
    shown = shown.replace("\n", " ")
    current = prompt.current
    assert f"{current.key} {current.label}" in shown, (columns, shown)
    first = prompt.question.split()[0]
    assert shown.startswith(f" {first}"), (columns, shown)  # the question is there, from its start
    extra = [i18n._("({index} of {count})").format(index=prompt.index + 1, count=len(prompt.choices)),
             i18n._("{key} next").format(key=prompt.cycle or "→")]
    labels = [f"{c.key} {c.label}" for c in prompt.choices]
    assert half_words(shown, prompt.question, *labels, *extra) == [], (columns, shown)
    return shown


async def check_every_choice(kb: Keyboard, columns: int) -> None:
    prompt = kb.app.prompt
    assert prompt is not None
    for _step in prompt.choices:
        check_prompt(kb.app, columns)
        await kb.keys("→")


async def test_a_long_question_is_shortened_at_a_word_and_the_current_choice_shown_whole(
        tmp_path: Path) -> None:
    terminal = Terminal(80, 24)
    for index, name in enumerate((LONG_NAME, WIDE_NAME)):
        folder = tmp_path / str(index)
        folder.mkdir()
        async with lan_table(folder, terminal, name) as kb:
            await offered_to_go_on(kb)
            for columns in (80, 120):
                terminal.size = Size(rows=24, columns=columns)
                # The longest questions of the code: going on without a player, and quitting.
                await kb.keys("g")
                assert "again without" in check_prompt(kb.app, columns)
                await check_every_choice(kb, columns)
                await kb.keys("\x1b")
                await kb.keys("q")
                assert "Quit the game?" in check_prompt(kb.app, columns)
                await check_every_choice(kb, columns)
                await kb.keys("n")
                # Many long answers: lay-downs and melds to hit, as the play screen asks them.
                labels = [f"P9 set of 5 + set of 2 with {LONG_NAME[:i + 8]}, {i + 4} down" for i in range(9)]
                kb.app.prompt = Prompt("Lay down which?", [Choice(str(i + 1), label, kb.app.cancel)
                                                           for i, label in enumerate(labels)], cycle="L")
                await check_every_choice(kb, columns)
                cards = " ".join(["R10", "B10", "G10", "Y10", "W", "W", "R11", "B11", "G11", "Y11"])
                kb.app.prompt = Prompt(f"Hit {cards} on which meld?",
                                       [Choice(chr(97 + i), f"{LONG_NAME}'s run of {i + 4}", kb.app.cancel)
                                        for i in range(6)])
                await check_every_choice(kb, columns)
                kb.app.prompt = None
            terminal.size = Size(rows=24, columns=80)


# 2. The rules


async def whole_panel(kb: Keyboard, columns: int) -> list[str]:
    """Every line of the side screen open, scrolled through with ↓; each fits ``columns``."""
    app = kb.app
    seen: dict[int, str] = {}
    while True:
        lines = text(app.drawn(app._panel_text())).split("\n")
        for index, line in enumerate(lines):
            assert get_cwidth(line) <= columns, (columns, line)
            seen[app.scroll + index] = line
        before = app.scroll
        await kb.keys("↓")
        app._panel_text()  # a scroll past the end comes back to it
        if app.scroll == before:
            return [seen[i] for i in sorted(seen)]


async def test_the_rules_screen_wraps_every_line_and_the_tie_break_can_be_read(tmp_path: Path) -> None:
    terminal = Terminal(80, 24)
    async with table(tmp_path, options=("hands=1", "skip=next"), terminal=terminal) as kb:
        await kb.until(kb.my_turn)
        for columns in (80, 60):
            terminal.size = Size(rows=24, columns=columns)
            await kb.keys("r")
            assert kb.app.screen == "rules"
            lines = await whole_panel(kb, columns)
            prose = " ".join(" ".join(lines).split())
            assert ("The game ends after 1 hand; everybody moves on every hand; the lowest total wins "
                    "(a tie replays).") in prose, lines
            assert "[x] skip=next" in prose and "10: set of 5 + set of 3" in prose
            assert "Cards left in hand: 1-9 5 points, 10-12 10, Skip 15, Wild 25." in prose
            await kb.keys("\x1b")


# 3. The score sheet


def cells(row: str) -> list[str]:
    """A row as the terminal shows it, a character per column (a wide one, then "")."""
    out: list[str] = []
    for char in row:
        out += [char] + [""] * (get_cwidth(char) - 1)
    return out


async def test_the_score_sheets_columns_stay_aligned(tmp_path: Path) -> None:
    """Names of every length (a wide one too), 1-, 2- and 3-digit points, phases 1 to 10, a tie
    replay and twelve hands: every row's cells end in the same columns, and the phases start in
    the same columns."""
    terminal = Terminal(80, 40)
    async with table(tmp_path, bots=3, terminal=terminal, name="山田") as kb:
        await kb.until(kb.my_turn)
        view = kb.local.view()
        names = ("山田", "Bo", "Maximiliane Mustermann", "Bot 3 (normal)")
        sheet = []
        for hand in range(12):
            phase = tuple(min(10, 1 + hand // s) for s in (1, 2, 3, 4))
            points = (5 * hand, 0 if hand % 3 else None, 105 + hand, 10 * (hand % 2))
            sheet.append(HandResult(hand + 1, hand == 7, phase, tuple(p == 0 for p in points),
                                    points, 1))
        shown = view._copy()
        for field, value in (("names", names), ("sheet", tuple(sheet)), ("totals", (330, 0, 1326, 60)),
                             ("made", ((1, 2, 3, 4, 5, 6, 7, 8, 9), (), (1,), (1, 2)))):
            object.__setattr__(shown, field, value)
        kb.app.state = lambda: shown  # type: ignore[method-assign]
        for columns in (80, 100, 60):
            terminal.size = Size(rows=40, columns=columns)
            await kb.keys("s")
            lines = text(kb.app.drawn(kb.app._panel_text())).split("\n")
            first = next(i for i, line in enumerate(lines) if line.startswith(" Hand "))
            rows = [cells(line) for line in lines[first:first + 15]]
            assert lines[first + 14].startswith(" Made") and lines[first + 8].startswith(" 8 tie")
            assert len({len(row) for row in rows}) == 1 and len(rows[0]) <= columns, lines
            # The cells' right edges, from the totals' row (numbers only, right-aligned).
            total = "".join(c or " " for c in rows[-2])
            edges = [m.end() for m in re.finditer(r"\d+", total)]
            assert len(edges) == 4, total
            for row in rows:
                for edge in edges:
                    assert row[edge - 1] != " " and (edge == len(row) or row[edge] == " "), \
                        ("".join(row), edge)
            for low, high in zip([0, *edges], edges, strict=False):  # a seat's phase: one column
                starts = {m.start() + low for row in rows[1:13]
                          for m in re.finditer(r"P\d", "".join(c or " " for c in row[low:high]))}
                assert len(starts) == 1, (low, high, starts)
            names_row = "".join(rows[0])
            assert "山田" in names_row and "Bo" in names_row and "Maximiliane" in names_row
            await kb.keys("\x1b")


# 4. The move log


async def test_the_move_log_grows_with_the_terminal(tmp_path: Path) -> None:
    terminal = Terminal(80, 24)
    async with table(tmp_path, bots=3, terminal=terminal) as kb:
        await kb.until(kb.my_turn)
        app = kb.app
        widths = {}
        for columns in (80, 100, 140):
            terminal.size = Size(rows=24, columns=columns)
            log = app._log_width()
            widths[columns] = log
            lines = text(app._log_text()).split("\n")
            assert max(get_cwidth(line) for line in lines) <= log - 1
            assert app.left_width() + 1 + log == columns
        assert widths[80] == 24 and 100 // 3 <= widths[100] <= 48 and 140 // 3 <= widths[140] <= 48
        terminal.size = Size(rows=24, columns=80)
        await kb.keys("d")  # eleven cards still in frames at 80 columns
        # (the card drawn is opened by the others' keys, which the table hands on a message at a
        # time, the screen drawing between: the stage is "play" before the card is in the hand)
        await kb.until(lambda: (state := app.state()) is not None and state.stage == "play"
                       and len(app.hand_slots(state)) == 11)
        tops = [line for line in text(app._left_text()).split("\n") if "┌───┐" in line or "┏━━━┓" in line]
        assert len(tops) == 1 and tops[0].count("┌───┐") + tops[0].count("┏━━━┓") == 11, tops


# 5. The replay viewer


class ViewerKeys:
    """Types keys into a running :class:`ReplayApp`."""

    def __init__(self, app: ReplayApp, pipe: PipeInput) -> None:
        self.app, self.pipe, self.handled = app, pipe, 0
        app.app.key_processor.after_key_press += self._counted

    def _counted(self, _processor: object) -> None:
        self.handled += 1

    async def keys(self, *keys: str) -> None:
        for key in keys:
            before = self.handled
            self.pipe.send_text(KEYS.get(key, key))
            await until(lambda: self.handled > before)  # noqa: B023 - awaited at once


async def until(condition: Callable[[], bool], seconds: float = 20) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.005)


@asynccontextmanager
async def viewer(folder: Path, terminal: Terminal) -> AsyncIterator[ViewerKeys]:
    """The replay viewer of a game of Ann and two greedy bots, as Ann saw it."""
    local = LocalTable("Ann", 2, "greedy", RuleSet.parse(["hands=1"]), 9, save_dir=folder, pace=0)
    local.run_to_end(POLICIES["greedy"])
    local.close()
    records = read_records(local.log_path.read_bytes()).items
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=terminal):
        app = ReplayApp(records, seat=0)
        task = asyncio.create_task(app.run())
        await until(lambda: app.app.is_running)
        try:
            yield ViewerKeys(app, pipe)
        finally:
            app.quit()
            await task


async def test_the_replay_viewer_shows_the_viewers_keys_and_no_players_hint(tmp_path: Path) -> None:
    async with viewer(tmp_path, Terminal(100, 30)) as keys:
        app = keys.app
        hints = 0
        while app.at < len(app.frames) - 1:
            await keys.keys("→")
            state = app.state()
            hint = app.fits(state)[1]
            hints += bool(hint)
            screen = app.screen_text()
            assert not hint or hint not in screen, screen
            for players_words in ("Your turn", "lays it down", "hits them", "select", "discard (x)"):
                assert players_words not in screen, screen
        assert hints  # a player's hint was there to leave out
        for key in ("s", "r", "?"):
            await keys.keys(key)
            footer = text(app._footer_text())
            assert " q  leave" in footer and "quit" not in footer, footer
        assert "one move back or on" in app.screen_text()


# 6. The LAN title


async def test_the_lan_title_fits_80_columns_without_cutting_a_word(tmp_path: Path) -> None:
    terminal = Terminal(400, 24)
    async with lan_table(tmp_path, terminal, LONG_NAME) as kb:
        await kb.until(kb.my_turn)
        lan = kb.app.table_seat
        assert isinstance(lan, AwayTable)
        app = kb.app
        state = app.state()
        assert state is not None
        for away, agreed in ((Waiting(0, 150.0, 150.0, True), {}), (Waiting(0, 150.0, None, False), {}),
                             (Waiting(0, 150.0, 150.0, True), {0: (1, 2)}), (None, {0: (1, 2)})):
            lan.away, lan.agreements = away, agreed
            terminal.size = Size(rows=24, columns=400)
            whole = text(app.title(state))
            for columns in (80, 100):
                terminal.size = Size(rows=24, columns=columns)
                shown = text(app._left_text()).split("\n")[0]
                assert get_cwidth(shown) <= app.left_width(), shown
                assert half_words(shown, whole) == [], (shown, whole)
                if away is not None:
                    assert "(2 min)" in shown, shown  # how long, even beside a long name


# 7. Translations


def longer(message: str) -> str:
    """A language whose words are longer than English ones (German's are): every word of four
    letters or more, outside the placeholders, twice as long."""
    return re.sub(r"(\{[^{}]*\})|\b([A-Za-z]{4,})\b",
                  lambda m: m.group(1) or m.group(2) + m.group(2).lower(), message)


class Longer(gettext.NullTranslations):
    def gettext(self, message: str) -> str:
        return longer(message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return longer(msgid1 if n == 1 else msgid2)

    def pgettext(self, context: str, message: str) -> str:
        return longer(message)

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        return longer(msgid1 if n == 1 else msgid2)


def pane_lines(app: Board) -> list[tuple[str, list[str], int]]:
    """Each pane of the screen as the terminal gets it: its name, its lines and its columns
    (a longer line would be cut by the terminal)."""
    columns = app.size()[0]
    parts = [("status", app._status_text(), columns), ("keys", app._footer_text(), columns)]
    if app.screen == "table":
        parts += [("table", app._left_text(), app.left_width()),
                  ("log", app._log_text(), max(app._log_width() - 1, 0))]
    else:
        parts.append(("panel", app._panel_text(), columns))
    return [(name, text(app.drawn(fragments)).split("\n"), limit) for name, fragments, limit in parts]


def check_fits(app: LanTableApp, columns: int) -> str:
    for _name, lines, limit in pane_lines(app):
        for line in lines:
            assert get_cwidth(line) <= limit, (columns, app.screen, line)
    return app.screen_text()


async def test_a_longer_language_fits_every_screen_and_the_words_are_marked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(i18n, "_translation", Longer())
    terminal = Terminal(80, 24)
    async with lan_table(tmp_path, terminal, LONG_NAME) as kb:
        await offered_to_go_on(kb)
        for columns in (80, 60):
            terminal.size = Size(rows=24, columns=columns)
            screen = check_fits(kb.app, columns)
            assert longer("Draw pile") in screen and longer("chat") in screen, screen
            if columns >= 72:
                assert longer("Moves") in screen and longer("is out of reach") in screen, screen
            for key, words in (("s", "Score sheet"), ("r", "Rules"), ("?", "Help")):
                await kb.keys(key)
                screen = check_fits(kb.app, columns)
                assert longer(words) in screen and longer("scores") in screen, screen
                await kb.keys("\x1b")
            await kb.keys("g")
            asked = longer("Deal hand {number} again without {name}?").split("{")[0]
            assert asked in check_fits(kb.app, columns)
            await kb.keys("\x1b")


def test_the_help_of_every_screen_is_marked_whole_for_the_translations() -> None:
    from cli.seat.lan import LAN_HELP
    from cli.table.panels import help_lines
    from cli.table.replay_view import REPLAY_HELP

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(i18n, "_translation", Longer())
        for entries in (REPLAY_HELP, LAN_HELP):
            shown = " ".join(" ".join(text(line) for line in help_lines(entries, 60)).split())
            for entry in entries:
                words = entry[1] if isinstance(entry, tuple) else entry
                if words:
                    assert " ".join(longer(words).split()) in shown, words
