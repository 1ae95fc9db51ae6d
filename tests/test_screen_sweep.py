"""Every screen and question a player meets, in English, German and Spanish at 80x24, read as a
person reads it: no word cut through, no line wider than the terminal, no sentence shortened
("…") where 80 columns should hold it, and no English word left in a translated screen.

The sweep plays a whole six-seat hand by keys (every question the table asks on the way, the
hint, the side screens, the hand's summary and the end screen), a three-seat game of two hands,
the start screen with games listed, the LAN table's questions and the replay viewer. A word is
"cut" when it is no word of the language's catalogue (nor a name or a card); a word is "left in
English" when it is a word of the English texts that no translation uses.
"""

from __future__ import annotations

import asyncio
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.utils import get_cwidth

from cli.game_settings import NewGame
from cli.seat.start import Listed
from cli.table import drawing
from cli.table.board import Board
from cli.table.lan import LanTableApp
from cli.table.play import TableApp
from cli.table.start import StartScreen
from p2p10 import i18n
from p2p10.bots import POLICIES
from p2p10.errors import BadRules
from p2p10.events import Hit, LayDown, SeatEvent
from p2p10.rules import RuleSet
from protocol.local import USER, LocalTable
from tests.test_play_app import KEYS, Keyboard, Terminal, running
from tests.test_table_screens import AwayTable, offered_to_go_on, pane_lines, viewer

pytestmark = pytest.mark.slow

COLUMNS, ROWS = 80, 24
NAME = "Ann"
# Words a screen may show in any language: the people's names, the keys' names (as keyboards
# print them), units and the program's name.
ALLOWED = {"ann", "bot", "bots", "enter", "esc", "tab", "backtab", "space", "home", "end", "pgup",
           "pgdn", "p2p10", "min", "ok", "eve", "id", "phase"}  # and the game's name, "Phase 10"
# English words a translation may use as its own (the same word in that language).
COGNATES = {
    "de": {"normal", "phase", "chat", "name", "cursor", "status", "terminal", "text", "code", "host",
           "lobby", "port", "moment", "export", "format", "hash", "log", "ip", "live", "minute", "record",
           "server"},
    "es": {"normal", "chat", "error", "total", "terminal", "pts", "bits", "ip", "log", "cursor"},
}
LETTERS = re.compile(r"[^\W\d_]+")  # a word: letters only ("Bot-Stärke" is two, "R12" is "R")
# Not words of a language: placeholders, flags, rule options as typed (skip=next, skip_stacking),
# commands, file paths.
NOT_WORDS = re.compile(r"\{[^{}]*\}|%\([^)]*\)[sd]|%[sd]|--?[a-z][\w-]*|\b\w+=\S*|\b[a-z]+_[a-z_]+\b"
                       r"|p2p10 [a-z]+|\S*/\S*|\S+\.p2p10\b")


def _words(text: str) -> set[str]:
    return {w.lower() for w in LETTERS.findall(NOT_WORDS.sub(" ", text))}


def vocabulary(lang: str) -> tuple[set[str], set[str]]:
    """The words of ``lang`` (those its translations use of their own, not copied from the
    English text they translate, and its cognates), and the words of the English texts."""
    with i18n.po_file("de" if lang == "en" else lang).open("rb") as file:
        catalogue = read_po(file, locale="de" if lang == "en" else lang)
    ours: set[str] = set(COGNATES.get(lang, ()))
    english: set[str] = set()
    for message in catalogue:
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [message.string] if isinstance(message.string, str) else list(message.string)
        source = set().union(*(_words(text) for text in ids))
        english |= source
        if lang == "en":
            ours |= source
        else:
            for text in strings:
                ours |= _words(text) - source  # a word copied from the English is not evidence
    return ours, english


class Reader:
    """Reads screens as a person would and keeps what falls short, with where it was seen."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.ours, english = vocabulary(lang)
        self.english_only = set() if lang == "en" else english - self.ours - ALLOWED
        self.found: list[str] = []
        self.seen = 0

    def read(self, text: str, where: str, listed: bool = False) -> None:
        """One screen's text: every line within 80 columns, every word whole and in the language
        (in a list, ``listed``, a line may be shortened at a word)."""
        self.seen += 1
        if listed and text.count("\n") >= ROWS:
            self.found.append(f"[{self.lang}] {where}: {text.count(chr(10)) + 1} lines, taller than {ROWS}")
        for line in text.split("\n"):
            problem = self.problem(line.replace("…", "") if listed else line)
            if problem:
                self.found.append(f"[{self.lang}] {where}: {problem}\n    |{line}|")

    def problem(self, line: str) -> str | None:
        if get_cwidth(line) > COLUMNS:
            return f"wider than {COLUMNS} columns"
        if "…" in line:
            return "shortened"
        for word in LETTERS.findall(NOT_WORDS.sub(" ", line)):
            low = word.lower()
            if len(low) < 2 or low in ALLOWED:
                continue
            if low in self.english_only and word not in NAMES:
                return f"English word {word!r}"
            if low not in self.ours and word not in NAMES:
                return f"cut or unknown word {word!r}"
        return None

    def overflow(self, line: str, limit: int) -> None:
        """A line that was longer than its room and cut at its edge."""
        self.found.append(f"[{self.lang}] cut at {limit} columns: |{line}|")


# The names the sweep's tables give their seats (a bot's level is a word, to be translated).
NAMES = {"Ann", "Ñúñez", "Bot", "Eve"}


@pytest.fixture
def catch_clips(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, int]]]:
    """Every line a screen cut at the terminal's edge (``clip`` with less room than the line)."""
    cut: list[tuple[str, int]] = []
    real = drawing.clip

    def clip(line: drawing.Line, limit: int) -> drawing.Line:
        if drawing.width(line) > limit and "".join(f[1] for f in line).strip():
            cut.append(("".join(f[1] for f in line), limit))
        return real(line, limit)

    import cli.table.lan
    import cli.table.replay_view
    import cli.table.start
    import cli.table.watch_view  # noqa: F401 - every screen's module, loaded to be patched
    for name, module in list(sys.modules.items()):
        if name.startswith("cli.table") and getattr(module, "clip", None) is real:
            monkeypatch.setattr(module, "clip", clip)
    yield cut


def parts_fit(app: Board, reader: Reader, where: str) -> None:
    """Each pane's lines within the pane (a longer one would be cut by the terminal)."""
    for name, lines, limit in pane_lines(app):
        if name not in ("status", "keys") and len(lines) > app.body_rows():
            reader.found.append(f"[{reader.lang}] {where}: {len(lines)} lines, taller than {app.body_rows()}")
        for line in lines:
            if get_cwidth(line) > limit:
                reader.found.append(f"[{reader.lang}] {where}: wider than its pane ({limit}) |{line}|")


def look(kb: Keyboard, reader: Reader, where: str) -> None:
    parts_fit(kb.app, reader, where)
    reader.read(kb.screen(), where)


async def answer(kb: Keyboard, reader: Reader, move: SeatEvent, where: str) -> None:
    """Answer the questions a move asks (which meld, which end, whom to skip), reading each."""
    app = kb.app
    for _round in range(4):
        prompt = app.prompt
        if prompt is None:
            return
        look(kb, reader, f"{where}: question {prompt.question!r}")
        keys = [c.key for c in prompt.choices]
        if isinstance(move, Hit) and chr(ord("a") + move.meld) in keys:
            await kb.keys(chr(ord("a") + move.meld))
        elif isinstance(move, Hit) and {"<", ">"} <= set(keys):
            await kb.keys("<" if move.end == "low" else ">")
        elif getattr(move, "target", None) is not None:
            spoken = app.spoken[move.target]  # type: ignore[attr-defined]
            choice = next(c for c in prompt.choices if spoken in c.label)
            await kb.keys(choice.key)
        else:
            await kb.keys(prompt.choices[0].key)


async def play_hand_by_keys(kb: Keyboard, reader: Reader, side_screens: bool) -> None:
    """The user's seat played to the end by a greedy bot's moves, typed; every screen on the
    way read, the hint asked each turn, the side screens and the quit question once."""
    rng = random.Random(5)
    local, app = kb.local, kb.app
    turn = 0
    while True:
        await kb.until(lambda: kb.my_turn() or local.over or app.screen in ("hand", "over"))
        look(kb, reader, f"turn {turn}")
        if app.screen == "hand":
            await kb.keys("Enter")
            continue
        if local.over or app.screen == "over":
            return
        await kb.keys("i")
        look(kb, reader, f"turn {turn}: hint")
        if side_screens and turn == 0:
            for key in ("?", "r", "s", "m"):
                await kb.keys(key)
                look(kb, reader, f"side screen {key}")
                for _back in range(3):
                    if app.screen == "table":
                        break
                    await kb.keys("\x1b")
            await kb.keys("q")
            look(kb, reader, "quit question")
            await kb.keys("\x1b")
        view = local.view()
        move = POLICIES["greedy"](view, USER, rng)
        before = kb.entries()
        if view.stage == "draw":
            await kb.keys("t" if type(move).__name__ == "TakeDiscard" else "d")
        elif isinstance(move, LayDown):
            await kb.keys("L")
            await answer(kb, reader, move, "L")
            if kb.entries() == before:
                await kb.keys("l")
        else:
            slots = app.hand_slots(view)
            await kb.keys(*["→"] * ((slots.index(move.slot) - app.cursor) % len(slots)))  # type: ignore[attr-defined]
            await kb.keys("h" if isinstance(move, Hit) else "x")
            await answer(kb, reader, move, "h" if isinstance(move, Hit) else "x")
        await kb.until(lambda: kb.entries() > before or local.over)  # noqa: B023 - awaited at once
        turn += 1


@pytest.fixture(params=i18n.LANGUAGES)
def reader(request: pytest.FixtureRequest) -> Iterator[Reader]:
    i18n.set_language(request.param)
    try:
        yield Reader(request.param)
    finally:
        i18n.set_language("en")


def report(reader: Reader, cut: list[tuple[str, int]]) -> None:
    for line, limit in cut:
        reader.overflow(line, limit)
    assert reader.seen > 0
    print(f"[{reader.lang}] {reader.seen} screens read")
    assert not reader.found, "\n".join(dict.fromkeys(reader.found))


async def play_game_by_keys(local: LocalTable, reader: Reader, side_screens: bool) -> None:
    """``local``'s game played by keys at 80x24 to its end screen, every screen read."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal(COLUMNS, ROWS)):
        async with running(TableApp(local), local, pipe) as kb:
            await play_hand_by_keys(kb, reader, side_screens)
            await kb.until(lambda: kb.app.screen == "over")
            look(kb, reader, "the end")


async def test_a_six_seat_hand_by_keys(tmp_path: Path, reader: Reader,
                                       catch_clips: list[tuple[str, int]]) -> None:
    local = LocalTable(NAME, 5, "normal", RuleSet.parse(["hands=1"]), 11, save_dir=tmp_path, pace=0)
    await play_game_by_keys(local, reader, side_screens=True)
    report(reader, catch_clips)


async def test_a_three_seat_game_of_two_hands_by_keys(tmp_path: Path, reader: Reader,
                                                     catch_clips: list[tuple[str, int]]) -> None:
    local = LocalTable(NAME, 2, "hard", RuleSet.parse(["hands=2", "skip=next"]), 27, save_dir=tmp_path,
                       pace=0)
    await play_game_by_keys(local, reader, side_screens=False)
    report(reader, catch_clips)


def test_the_start_screen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: Reader,
                          catch_clips: list[tuple[str, int]]) -> None:
    """With a game won and recorded, one lost, and one left unfinished, as the command lists them."""
    from cli.play_cmd import _unfinished_label
    from protocol import record_store
    from protocol.local import unfinished_games

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    for seed, options in ((4, ["hands=2"]), (5, ["hands=1", "skip=next"])):
        done = LocalTable("Ann Ñúñez", 5, "hard", RuleSet.parse(options), seed, pace=0)
        done.run_to_end(POLICIES["greedy"])
        done.close()
        assert done.user.table is not None
        record_store.add_finished_table(done.user.table, USER, done.log_path)
    left = LocalTable("Ann Ñúñez", 5, "easy", RuleSet.parse([]), 6, pace=0)
    left.start()
    while left.step() or left.bot_move():
        pass
    left.close()
    record = record_store.load()
    unfinished = [Listed(g.path, _unfinished_label(g)) for g in unfinished_games()]
    recent = [Listed(Path(g.log_path), g.describe()) for g in record.latest(3)]
    assert unfinished and len(recent) == 2

    async def main() -> None:
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal(COLUMNS, ROWS)):
            screen = StartScreen(NewGame(NAME), unfinished, recent, record.summary_lines())
            task = asyncio.create_task(screen.run())
            for key in ["↓", "↓", "→", "→", "↓", "→", "→", "↓", "↓", "↓", "↓", "↓", "↓", "↓"]:
                await asyncio.sleep(0.02)
                shown = screen.screen_text()
                reader.read(shown, f"start screen row {screen.cursor}", listed=True)
                whole = screen.rows()[screen.cursor].text  # the row under the cursor, whole
                if " ".join(whole.split()) not in " ".join(shown.split()):
                    reader.found.append(f"[{reader.lang}] start screen: the row chosen is not whole: {whole}")
                pipe.send_text(KEYS.get(key, key))
            # A rule option that does not exist: the error, which lists every option, whole.
            await asyncio.sleep(0.05)
            for _step in range(3 * len(screen.rows())):  # (down the menu, round it if need be)
                if screen.rows()[screen.cursor].key == "options":
                    break
                pipe.send_text(KEYS["↓"])
                await asyncio.sleep(0.02)
            assert screen.rows()[screen.cursor].key == "options", screen.screen_text()
            pipe.send_text("\r nonsense=1\r")  # after the options the row has
            await asyncio.sleep(0.05)
            shown = screen.screen_text()
            reader.read(shown, "start screen, an unknown rule option", listed=True)
            with pytest.raises(BadRules) as refused:
                RuleSet.parse([*screen.settings.options, "nonsense=1"])
            error = str(refused.value)
            if "".join(error.split()) not in "".join(shown.split()):
                reader.found.append(f"[{reader.lang}] start screen: the error is not whole: {error}")
            pipe.send_text("q")
            await asyncio.wait_for(task, 10)

    asyncio.run(main())
    report(reader, catch_clips)


async def test_the_lan_tables_questions(tmp_path: Path, reader: Reader,
                                        catch_clips: list[tuple[str, int]]) -> None:
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal(COLUMNS, ROWS)):
        local = AwayTable(NAME, 2, "normal", RuleSet.parse(["hands=1"]), 3, save_dir=tmp_path, pace=0)
        async with running(LanTableApp(local), local, pipe) as kb:  # type: ignore[arg-type]
            await offered_to_go_on(kb)
            look(kb, reader, "LAN table, a player away")
            await kb.keys("g")
            look(kb, reader, "LAN go on question")
            await kb.keys("\x1b", "q")
            look(kb, reader, "LAN quit question")
            await kb.keys("\x1b", "?")
            look(kb, reader, "LAN help")
    report(reader, catch_clips)


async def test_the_replay_viewer(tmp_path: Path, reader: Reader, catch_clips: list[tuple[str, int]]) -> None:
    async with viewer(tmp_path, Terminal(COLUMNS, ROWS)) as keys:
        app = keys.app
        steps = 0
        while app.at < len(app.frames) - 1 and steps < 400:
            if steps % 7 == 0:
                parts_fit(app, reader, f"replay step {app.at}")
                reader.read(app.screen_text(), f"replay step {app.at}")
            await keys.keys("→")
            steps += 1
        reader.read(app.screen_text(), "replay end")
        await keys.keys("?")
        reader.read(app.screen_text(), "replay help")
    report(reader, catch_clips)



@pytest.mark.parametrize("english_key", [False, True])
@pytest.mark.parametrize("lang", i18n.LANGUAGES)
async def test_a_yes_or_no_question_takes_the_languages_yes_key_and_names_each_key_apart(
        tmp_path: Path, lang: str, english_key: bool) -> None:
    """The quit question shows the language's key for yes (j, s), takes it and English y; the
    keys under a question each say a different thing."""
    i18n.set_language(lang)
    try:
        local = LocalTable(NAME, 2, "normal", RuleSet.parse(["hands=1"]), 3, save_dir=tmp_path, pace=0)
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal(COLUMNS, ROWS)):
            async with running(TableApp(local), local, pipe) as kb:
                await kb.until(kb.my_turn)
                yes = {"en": "y", "de": "j", "es": "s"}[lang]
                await kb.keys("q")
                assert kb.app.prompt is not None
                assert kb.app.prompt.choices[0].key == yes and f" {yes} " in kb.screen(), kb.screen()
                footer = "".join(f[1] for f in kb.app._footer_text()).split()
                words = footer[1::2]  # key, word, key, word... (one word each here)
                assert len(set(words)) == len(words), footer
                await kb.keys("y" if english_key else yes)
                await kb.until(lambda: not kb.app.app.is_running)
    finally:
        i18n.set_language("en")


def test_the_words_printed_on_leaving_a_game_fit_the_terminal_and_name_the_bots_in_the_language(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """After the full-screen table closes, what ``p2p10 play`` prints is wrapped at words to
    the terminal (the terminal itself would break a word at its edge), in the language spoken,
    a bot's level too."""
    from cli.play_cmd import _say, result_lines

    monkeypatch.setenv("COLUMNS", "80")
    local = LocalTable(NAME, 2, "hard", RuleSet.parse(["hands=1"]), 4, save_dir=tmp_path, pace=0)
    local.run_to_end(POLICIES["greedy"])
    local.close()
    i18n.set_language("de")
    try:
        for line in result_lines(local.view()):
            print(line)
        _say(i18n._("To see it again move by move, and to check every shuffle, card and score:"))
        printed = capsys.readouterr().out
    finally:
        i18n.set_language("en")
    reader = Reader("de")
    reader.read(printed, "printed on leaving")
    assert "(schwer)" in printed and "(hard)" not in printed, printed
    assert not reader.found, "\n".join(reader.found)
