"""The start screen of ``p2p10 play``: a new game, an unfinished one to continue, a recent one to
replay, and the player's record, chosen with the arrow keys and Enter.

The screen decides nothing about the game: it gathers the settings a flag would give (``--bots``,
``--level``, ``-o``, ``--name``, ``--resume``) and returns them as a :data:`StartChoice`; the
command then does exactly what the same flags do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    BufferControl,
    ConditionalContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    Window,
)

# The settings live in cli.game_settings (read and kept without the screen); named here too.
from cli.game_settings import LEVELS as LEVELS
from cli.game_settings import NewGame as NewGame
from cli.table.drawing import ASCII, ASCII_ELLIPSIS, ELLIPSIS, STYLE, Line, clip, flow, join, plain
from cli.table.drawing import columns as columns_of
from p2p10.errors import P2P10Error
from p2p10.i18n import N_, _, pgettext
from p2p10.names import level_name
from p2p10.rules import RuleSet
from p2p10.table import MAX_NAME

# The kinds of game offered by name; any other rule options are typed in the "Rule options" row.
GAMES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (N_("full game: phases 1 to 10"), ()),
    (N_("quick game: the even phases 2, 4, 6, 8, 10"), ("phases=even",)),
    (N_("three hands: lowest total wins"), ("hands=3",)),
)
SHOWN = 3  # unfinished and recent games listed


# prompt_toolkit's key names as the table's screens name them (cli.table.board does the same).
KEY_NAMES = {"c-m": "Enter", "c-j": "Enter", " ": "Space", "c-i": "Tab", "s-tab": "BackTab",
             "escape": "Esc", "left": "←", "right": "→", "up": "↑", "down": "↓"}


@dataclass(frozen=True, slots=True)
class Continue:
    """Continue the unfinished game saved at ``path`` (``--resume PATH``)."""

    path: Path


@dataclass(frozen=True, slots=True)
class Replay:
    """Watch the finished game saved at ``path`` (``p2p10 replay PATH``)."""

    path: Path


@dataclass(frozen=True, slots=True)
class Leave:
    """Leave without playing."""


StartChoice = NewGame | Continue | Replay | Leave


@dataclass(frozen=True, slots=True)
class Listed:
    """A game on disk as the menu lists it: its file and a one-line description."""

    path: Path
    label: str


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the menu: what Enter does there, and what ←/→ change."""

    key: str
    text: str
    path: Path | None = None


class StartScreen:
    """The menu (see the module docstring); :meth:`run` returns the player's choice."""

    def __init__(self, settings: NewGame, unfinished: Sequence[Listed] = (),
                 recent: Sequence[Listed] = (), record: Sequence[str] = (),
                 ascii_only: bool = False, notice: str | None = None) -> None:
        self.settings = settings
        self.unfinished = list(unfinished)[:SHOWN]
        self.recent = list(recent)[:SHOWN]
        self.record = list(record)
        self.ascii_only = ascii_only
        self.game = next((i for i, (_text, opts) in enumerate(GAMES) if opts == settings.options), None)
        self.cursor = 0
        # A line under the menu until the next key: an error, or a notice (settings not read).
        self.message: tuple[str, str] | None = None if notice is None else ("class:error", notice)
        self.editing: str | None = None  # "name" or "options" while a line is typed
        self.choice: StartChoice = Leave()
        self.on_finish: list[Callable[[StartChoice], None]] = []  # another front end's (the browser's)
        self.editor = Buffer(multiline=False)
        keys = KeyBindings()
        menu = Condition(lambda: self.editing is None)
        keys.add(Keys.Any, filter=menu)(self._key)  # every key, arrows and Ctrl-C too
        edit = KeyBindings()
        edit.add("enter")(lambda _event: self._edited(True))
        edit.add("escape", eager=True)(lambda _event: self._edited(False))
        edit.add("c-c")(lambda _event: self._edited(False))
        self.text = FormattedTextControl(self._menu_text, focusable=True, show_cursor=False)
        self.field = BufferControl(self.editor, key_bindings=edit)
        field_label = FormattedTextControl(lambda: [("class:title", self._field_prompt())])
        body = HSplit([
            Window(self.text, wrap_lines=False),
            ConditionalContainer(HSplit([Window(field_label, height=1), Window(self.field, height=1)]),
                                 filter=Condition(lambda: self.editing is not None)),
        ])
        self.app: Application[None] = Application(layout=Layout(body, focused_element=self.text),
                                                  key_bindings=keys, style=STYLE, full_screen=True,
                                                  mouse_support=False)

    # ------------------------------------------------------------------ the menu

    def rows(self) -> list[Row]:
        """The menu's lines, in order (the cursor is an index into them)."""
        s = self.settings
        game = _(GAMES[self.game][0]) if self.game is not None else ", ".join(s.options)
        rows = [
            Row("start", _("Start a new game")),
            Row("bots", _("Bots at the table: {n}   (←/→: 1 to 5)").format(n=s.bots)),
            # TRANSLATORS: the bots' level; the three words as in the bot levels (easy, normal, hard).
            Row("level", _("Their level: {level}   (←/→: easy, normal, hard)").format(
                level=level_name(s.level))),
            Row("game", _("Game: {game}   (←/→)").format(game=game)),
            Row("options", _("Rule options: {options}   (Enter to type)").format(
                # TRANSLATORS: no rule options are chosen (the standard rules).
                options=" ".join(s.options) or pgettext("rule options", "none"))),
            Row("name", _("Your name: {name}   (Enter to type)").format(name=s.name)),
        ]
        rows += [Row("continue", _("Continue: {game}").format(game=g.label), g.path) for g in self.unfinished]
        rows += [Row("replay", _("Replay: {game}").format(game=g.label), g.path) for g in self.recent]
        rows.append(Row("leave", _("Leave")))
        return rows

    def press(self, key: str) -> None:
        """One key on the menu (the pipe-input tests type through here)."""
        rows = self.rows()
        self.message = None
        row = rows[self.cursor]
        if key in ("↑", "k", "BackTab"):
            self.cursor = (self.cursor - 1) % len(rows)
        elif key in ("↓", "j", "Tab"):
            self.cursor = (self.cursor + 1) % len(rows)
        elif key in ("←", "→"):
            self._change(row.key, -1 if key == "←" else 1)
        elif key in ("Enter", "Space"):
            self._choose(row)
        elif key == "n":
            self._choose(rows[0])
        elif key == "c" and self.unfinished:
            self._choose(Row("continue", "", self.unfinished[0].path))
        elif key == "c":
            self.message = ("class:error", _("There is no unfinished game to continue: "
                                             "n starts a new one."))
        elif key in ("q", "Esc", "c-c"):
            self._finish(Leave())

    def _change(self, key: str, step: int) -> None:
        s = self.settings
        if key == "bots":
            self.settings = replace(s, bots=min(5, max(1, s.bots + step)))
        elif key == "level":
            index = LEVELS.index(s.level) if s.level in LEVELS else 1
            self.settings = replace(s, level=LEVELS[(index + step) % len(LEVELS)])
        elif key == "game":
            self.game = ((self.game if self.game is not None else -step) + step) % len(GAMES)
            self.settings = replace(s, options=GAMES[self.game][1])

    def _choose(self, row: Row) -> None:
        if row.key == "start":
            self._finish(self.settings)
        elif row.key in ("name", "options"):
            self.editing = row.key
            text = self.settings.name if row.key == "name" else " ".join(self.settings.options)
            self.editor.set_document(Document(text, len(text)))
            self.app.layout.focus(self.field)
        elif row.key == "continue" and row.path is not None:
            self._finish(Continue(row.path))
        elif row.key == "replay" and row.path is not None:
            self._finish(Replay(row.path))
        elif row.key == "leave":
            self._finish(Leave())
        elif row.key in ("bots", "level", "game"):
            self._change(row.key, 1)

    def _edited(self, keep: bool) -> None:
        field, text = self.editing, self.editor.text.strip()
        self.editing = None
        self.app.layout.focus(self.text)
        if keep and field is not None:
            self.edit(field, text)

    def edit(self, field: str, text: str) -> None:
        """Set the name or the rule options to ``text`` typed (an error said under the menu
        and nothing changed when it is not one)."""
        text = text.strip()
        if field == "name":
            if 0 < len(text) <= MAX_NAME and text.isprintable():
                self.settings = replace(self.settings, name=text)
            else:
                error = _("A name is 1 to {n} printable characters.").format(n=MAX_NAME)
                self.message = ("class:error", error)
        elif field == "options":
            options = tuple(text.replace(",", " ").split())
            try:
                RuleSet.parse(options)
            except P2P10Error as err:
                self.message = ("class:error", str(err))
                return
            self.settings = replace(self.settings, options=options)
            self.game = next((i for i, (_t, opts) in enumerate(GAMES) if opts == options), None)

    def _finish(self, choice: StartChoice) -> None:
        self.choice = choice
        if self.app.is_running:
            self.app.exit()
        for hook in self.on_finish:
            hook(choice)

    # ------------------------------------------------------------------ drawing

    def _field_prompt(self) -> str:
        if self.editing == "name":
            return _("Your name (Enter to keep, Esc to cancel):")
        # TRANSLATORS: keep the rule options phases=even skip=next and the command 'p2p10 rules
        # options' as they are.
        return _("Rule options, e.g. phases=even skip=next (see 'p2p10 rules options'; Enter, Esc):")

    def lines(self, columns: int, height: int = 1000) -> list[Line]:
        """The menu drawn ``columns`` wide and at most ``height`` lines high: the row under the
        cursor whole (on up to three lines), the others on one line each, shortened at a word;
        the record's lines that do not fit left to ``p2p10 stats``."""
        ellipsis = ASCII_ELLIPSIS if self.ascii_only else ELLIPSIS
        out: list[Line] = [plain(_("p2p10: Phase 10 with no server and no trusted dealer"), "class:title"),
                           plain("")]
        rows = self.rows()
        headings = {"start": _("New game"), "continue": _("Unfinished games"), "replay": _("Recent games")}
        seen: set[str] = set()
        for index, row in enumerate(rows):
            heading = headings.get(row.key)
            if heading is not None and row.key not in seen:
                seen.add(row.key)
                if index:
                    out.append(plain(""))
                out.append(plain(heading, "class:header"))
            here = index == self.cursor
            lead = ("▶ " if here else "  ") + ("  " if row.key in ("bots", "level", "game", "options", "name")
                                               else "")
            parts = flow([("class:choice" if here else "", row.text)], columns - columns_of(lead),
                         3 if here else 1, "  ", ellipsis)
            out.append([("", lead), *parts[0]])
            out += [[("", " " * columns_of(lead)), *part] for part in parts[1:]]
        tail: list[Line] = [plain("")]
        if self.message is not None:  # a notice names a file, whose path may be long
            tail += flow(plain(self.message[1], self.message[0]), columns, 5, "  ", ellipsis)
        else:
            tail += flow(plain(_("Leave a game or a replay and you come back here; q here leaves."),
                               "class:dim"), columns, 2, "  ", ellipsis)
        # TRANSLATORS: the keys (↑/↓ ←/→ Enter n c q) are what the player presses: keep them.
        tail += flow(plain(_("↑/↓ choose  ←/→ change  Enter select  n new game  c continue  q leave"),
                           "class:dim"), columns, 2, "  ", ellipsis)
        room = height - len(out) - len(tail) - 2  # a blank line and the heading before the record
        record = [part for line in self.record for part in flow(plain(line), columns, 2, "  ", ellipsis)]
        if len(record) > room:  # each of the record's lines on one line, then
            record = [flow(plain(line), columns, 1, "", ellipsis)[0] for line in self.record]
        record = record or [plain(_("No finished game yet."), "class:dim")]
        if len(record) > room:
            # TRANSLATORS: under the start screen's record, when not all of it fits the terminal.
            record = [*record[:max(room - 1, 0)], plain(_("(the whole record: p2p10 stats)"), "class:dim")]
        if room > 0:
            out += [plain(""), plain(_("Your record"), "class:header"), *record[:room]]
        return [clip(line, columns) for line in out + tail]

    def _menu_text(self) -> StyleAndTextTuples:
        size = self.app.output.get_size()
        text = join(self.lines(size.columns, size.rows))
        if self.ascii_only:  # the menu has no mouse handlers to keep
            text = [(fragment[0], fragment[1].translate(ASCII)) for fragment in text]
        return text

    def screen_text(self) -> str:
        """The menu as plain text, as the terminal shows it."""
        size = self.app.output.get_size()
        return "\n".join("".join(f[1] for f in line) for line in self.lines(size.columns, size.rows))

    def _key(self, event: KeyPressEvent) -> None:
        pressed = event.key_sequence[0]
        key = pressed.key.value if isinstance(pressed.key, Keys) else pressed.data
        self.press(KEY_NAMES.get(key, key))
        self.app.invalidate()

    async def run(self) -> StartChoice:
        """Show the menu until a choice is made; returns it."""
        await self.app.run_async()
        return self.choice


def choose(settings: NewGame, unfinished: Sequence[Listed], recent: Sequence[Listed],
           record: Sequence[str], ascii_only: bool = False,
           runner: Callable[[StartScreen], StartChoice] | None = None,
           notice: str | None = None) -> StartChoice:
    """Show the start screen and return the choice (``runner`` runs it; asyncio by default);
    ``notice`` is shown under the menu until the first key."""
    screen = StartScreen(settings, unfinished, recent, record, ascii_only, notice)
    if runner is not None:
        return runner(screen)
    import asyncio

    return asyncio.run(screen.run())
