"""The start screen of ``p2p10 play`` in a terminal: the menu of :mod:`cli.seat.start` (a new
game, an unfinished one to continue, a recent one to replay, and the player's record) drawn with
prompt_toolkit, chosen with the arrow keys and Enter, with a line to type the name or the rule
options in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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

from cli.game_settings import NewGame
from cli.seat.start import Listed, StartChoice, StartMenu, headings
from cli.table.drawing import ASCII, ASCII_ELLIPSIS, ELLIPSIS, KEY_NAMES, STYLE, Line, clip, flow, join, plain
from cli.table.drawing import columns as columns_of
from p2p10.i18n import _


class StartScreen(StartMenu):
    """The menu in a terminal (see the module docstring); :meth:`run` returns the player's
    choice."""

    def __init__(self, settings: NewGame, unfinished: Sequence[Listed] = (),
                 recent: Sequence[Listed] = (), record: Sequence[str] = (),
                 ascii_only: bool = False, notice: str | None = None) -> None:
        super().__init__(settings, unfinished, recent, record, notice)
        self.ascii_only = ascii_only
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

    def begin_edit(self, field: str) -> None:
        """The line under the menu opens, holding the setting as it is."""
        text = self.typed_text(field)
        self.editor.set_document(Document(text, len(text)))
        self.app.layout.focus(self.field)

    def _edited(self, keep: bool) -> None:
        field, text = self.editing, self.editor.text.strip()
        self.editing = None
        self.app.layout.focus(self.text)
        if keep and field is not None:
            self.edit(field, text)

    def finish(self, choice: StartChoice) -> None:
        """The menu is done: the terminal's screen ends, and ``on_finish`` is told."""
        if self.app.is_running:
            self.app.exit()
        super().finish(choice)

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
        heads = headings()
        seen: set[str] = set()
        for index, row in enumerate(rows):
            heading = heads.get(row.key)
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
