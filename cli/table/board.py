"""What the play screen and the replay viewer share in a terminal: the layout (the table pane
and the move log, or a side screen; the status line; the keys), drawn from the board's model
(:class:`~cli.seat.board.SeatBoard`: its messages, questions and keys)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from prompt_toolkit.application import Application
from prompt_toolkit.filters import buffer_has_focus
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import DynamicContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.layout.controls import FormattedTextControl

from cli.seat.prompts import Prompt
from cli.table import panels
from cli.table.drawing import (
    ASCII,
    BAR,
    KEY_NAMES,
    RULE,
    STYLE,
    Line,
    click,
    clip,
    coloured_words,
    columns,
    fit_words,
    flow,
    join,
    shorten,
    tagged,
    width,
    wrap,
)
from cli.table.pane import TablePane
from p2p10.i18n import _, pgettext
from p2p10.screen_view import HelpView, OverView, RulesView, SummaryView
from p2p10.seat_view import SheetView

LOG_SHARE, LOG_MIN, LOG_MAX = 3, 24, 48  # the move log: a third of the terminal, in these bounds
NO_LOG_BELOW = 72  # narrower, the move log gives its room to the table
HAND_ROOM = 56  # the table pane's columns for a hand of 11 cards in frames (5 each), kept if it can
STATUS_ROWS = 2  # lines a long message or question may take (a question's answers one more)
QUESTION_MIN = 16  # columns of a question worth showing beside every choice of a prompt


class Board(TablePane):
    """A full-screen table of one game (see the module docstring). A screen built on it calls
    :meth:`build_terminal` once its model is set up."""

    def build_terminal(self, ascii_only: bool) -> None:
        """The prompt_toolkit application that draws the board (``--ascii``: no box-drawing
        characters)."""
        self.ascii = ascii_only
        self._panel_rows = 0
        self._left = FormattedTextControl(lambda: self.drawn(self._left_text()))
        self._log = FormattedTextControl(lambda: self.drawn(self._log_text()))
        self._panel = FormattedTextControl(lambda: self.drawn(self._panel_text()))
        self._status = FormattedTextControl(lambda: self.drawn(self._status_text()))
        self._footer = FormattedTextControl(lambda: self.drawn(self._footer_text()))
        table = VSplit([Window(self._left, wrap_lines=False),
                        Window(width=1, char="|" if ascii_only else BAR, style="class:dim"),
                        Window(self._log, width=lambda: self._log_width(), wrap_lines=False)])
        lone = Window(self._left, wrap_lines=False)
        panel = Window(self._panel, wrap_lines=False)

        def body() -> Container:
            if self.screen != "table":
                return panel
            return table if self._log_width() else lone

        root = HSplit([DynamicContainer(body), self.status_line(),
                       Window(self._footer, height=lambda: len(self.footer_lines()))])
        keys = KeyBindings()
        # Every key, the arrows and Ctrl-C too (press() sorts them out), unless a line of text
        # is being typed: then the text field's own keys edit it.
        keys.add(Keys.Any, filter=~buffer_has_focus)(self._key)
        self.app: Application[None] = Application(
            layout=Layout(root), key_bindings=keys, style=STYLE, full_screen=True,
            mouse_support=True, min_redraw_interval=0.03)
        # Esc alone must not wait half a second for the rest of an escape sequence.
        self.app.ttimeoutlen = 0.05

    def status_line(self) -> Container:
        """The status line under the table (a screen may type text there): two lines when a
        message or a question and its answers need them."""
        return Window(self._status, height=lambda: len(self.status_lines()))

    def drawn(self, text: StyleAndTextTuples) -> StyleAndTextTuples:
        """Text as it goes to the terminal: in ASCII with ``--ascii``."""
        if not self.ascii:
            return text
        return [(f[0], f[1].translate(ASCII), *f[2:]) for f in text]

    def screen_text(self) -> str:
        """What the screen shows, as plain text: the table (or side screen), the move log, the
        status line and the keys."""
        parts = [self._left_text(), self._log_text()] if self.screen == "table" else [self._panel_text()]
        parts += [self._status_text(), self._footer_text()]
        return "\n".join("".join(fragment[1] for fragment in self.drawn(part)) for part in parts)

    # ----------------------------------------------------------------- to be provided

    def footer(self) -> list[Line]:
        """The two lines of keys for the table screen."""
        raise NotImplementedError

    # ------------------------------------------------------------------- measuring

    def _log_width(self) -> int:
        """Columns of the move log (0: not shown): it grows with the terminal, but leaves the
        table pane the room for a hand in frames while it can."""
        total = self.size()[0]
        if total < NO_LOG_BELOW:
            return 0
        return max(LOG_MIN, min(LOG_MAX, total // LOG_SHARE, total - 1 - HAND_ROOM))

    def left_width(self) -> int:
        """Columns of the table pane."""
        log = self._log_width()
        return self.size()[0] - (log + 1 if log else 0)

    def body_rows(self) -> int:
        """Rows above the status line and the keys."""
        return self.size()[1] - len(self.status_lines()) - len(self.footer_lines())

    # -------------------------------------------------------------------- the move log

    def log_lines(self) -> list[str]:
        """The move log's lines so far, a hand's heading set off by a rule."""
        return [f"{RULE * 2} {t.line}" if t.kind == "heading" else t.line for t in self.log_told() if t.shown]

    def _log_text(self) -> StyleAndTextTuples:
        limit = self._log_width() - 1
        rows = self.body_rows() - 1
        if limit <= 0 or rows <= 0:  # no room for the log pane
            return []
        wrapped: list[Line] = []
        for text in self.log_lines():
            style = "class:dim" if text.startswith(RULE) else ""
            for part in wrap(text, limit) or [""]:
                wrapped.append(coloured_words(part, style))
        heading = fit_words([("class:header", " " + _("Moves"))], limit + 1, self.ellipsis)
        return join([heading, *wrapped[-rows:]])

    # ----------------------------------------------------------------- side screens

    def _panel_text(self) -> StyleAndTextTuples:
        state = self.state()
        limit = self.size()[0]
        # Every meld in card frames, drawn from the state itself (the page draws melds_view).
        view = None if self.screen == "melds" else self.side_view()
        if self.screen == "melds" and state is not None:
            lines = self.all_melds_lines(state, limit)
        elif isinstance(view, HelpView):
            lines = panels.help_view_lines(view, limit)
        elif isinstance(view, RulesView):
            lines = panels.rules_lines(view, limit)
        elif isinstance(view, SummaryView):
            lines = panels.summary_lines(view, limit)
        elif isinstance(view, OverView):
            lines = panels.over_lines(view, limit)
        elif isinstance(view, SheetView):
            lines = panels.sheet_lines(view, limit)
        else:
            lines = []
        self._panel_rows = len(lines)
        rows = self.body_rows()
        self.scroll = max(0, min(self.scroll, len(lines) - rows))
        return join([clip(line, limit) for line in lines[self.scroll:self.scroll + rows]])

    # --------------------------------------------------------------- status, footer

    def _status_text(self) -> StyleAndTextTuples:
        return join(self.status_lines())

    def status_lines(self) -> list[Line]:
        """The status line: the last message, or a question and its answers; a second line when
        the message does not fit one, or the question and every answer do not fit beside each
        other (the question above, the answers under it)."""
        prompt = self.prompt
        total = self.size()[0]
        if prompt is None:
            status: Line = list(self.status)
            if not status and not self._log_width() and self.screen == "table" and self.log_lines():
                status = coloured_words(self.log_lines()[-1], "class:dim")  # no room for the log pane
            return flow([("", " "), *status], total, STATUS_ROWS, "  ", self.ellipsis)
        if columns(prompt.question) + width(self.answer_layouts(prompt)[0]) + 3 <= total:
            return [self.prompt_line(prompt, total)]
        question = flow([("class:warn", f" {prompt.question}")], total, STATUS_ROWS, " ", self.ellipsis)
        for answers in self.answer_layouts(prompt):
            if width(answers) + 1 <= total:
                return [*question, [("", " "), *answers]]
        return [*question, fit_words([("", " "), *self.answer_layouts(prompt)[-1]], total, self.ellipsis)]

    def prompt_line(self, prompt: Prompt, limit: int) -> Line:
        """A question and its answers in ``limit`` columns, never a word cut through: every
        choice beside the question (shortened at a word if need be); when they do not fit, the
        current choice whole, where it stands among them and the key to the next, beside the
        question shortened: to whole sentences, or to a few words at the very least (to its
        first if that does not fit either); on a very narrow terminal, the current choice alone."""
        layouts = self.answer_layouts(prompt)
        current = layouts[-1]
        for least in (min(columns(prompt.question), QUESTION_MIN), 1):
            for answers in layouts:
                short = shorten(prompt.question, limit - width(answers) - 2, self.ellipsis)
                if short and (columns(short) >= least or not short.endswith(self.ellipsis)):  # or sentences
                    return [("class:warn", f" {short} "), *answers]
        return fit_words([("", " "), *current], limit, self.ellipsis)

    def answer_layouts(self, prompt: Prompt) -> tuple[Line, Line, Line, Line]:
        """A question's answers, from the widest way of showing them to the narrowest: every
        answer after its key (the current one marked); the current one whole, where it stands
        among them and the key to the next; without that key; the current one alone. A click
        picks an answer."""
        every: Line = []
        for index, choice in enumerate(prompt.choices):
            style = "class:choice" if index == prompt.index else ""
            answer = tagged([("class:key", choice.key), (style, f" {choice.label}")],
                            click(partial(self.pick, index)))
            every += [("", "  ")] * bool(index) + answer
        current = tagged([("class:key", prompt.current.key), ("class:choice", f" {prompt.current.label}")],
                         click(partial(self.pick, prompt.index)))
        # TRANSLATORS: where the choice shown stands among a question's answers: "(2 of 5)".
        place: Line = [("", _("({index} of {count})").format(index=prompt.index + 1,
                                                           count=len(prompt.choices)) + " ")]
        # TRANSLATORS: the key that shows a question's next answer ("→ next", "L next").
        hint: Line = [("class:dim", "  " + _("{key} next").format(key=prompt.cycle or "→"))]
        return every, place + current + hint, place + current, current

    def keys_lines(self, items: Sequence[tuple[str, str, bool]]) -> list[Line]:
        """Footer lines: each key and its action, dimmed when not available, flowed to the
        terminal's width; a click presses the key."""
        total = self.size()[0]
        lines: list[Line] = [[]]
        for key, words, available in items:
            off = "" if available else "class:key.off"
            label = f" {key} "
            # A label wider than the terminal (a long name, a long translation) is shortened
            # at a word rather than cut.
            words = shorten(words, total - 1 - columns(label), self.ellipsis) or words
            piece = tagged([(off or "class:key", label), (off, f" {words}")], click(partial(self.press, key)))
            if lines[-1] and width(lines[-1]) + 2 + width(piece) > total:
                lines.append([])
            lines[-1] += [("", "  ")] * bool(lines[-1]) + piece
        return lines

    def footer_lines(self) -> list[Line]:
        """The keys at the bottom of the screen, for what is on it."""
        if self.prompt is None and self.screen == "table":
            return self.footer()
        items = self.key_items()
        lines = self.keys_lines(items)
        if self.prompt is None and self._panel_rows > self.size()[1] - 1 - len(lines):  # too tall
            lines = self.keys_lines([*items, ("↑↓", pgettext("key", "scroll"), True)])
        return lines

    def _footer_text(self) -> StyleAndTextTuples:
        return join([clip(line, self.size()[0]) for line in self.footer_lines()])

    # ------------------------------------------------------------------------ keys

    def _key(self, event: KeyPressEvent) -> None:
        pressed = event.key_sequence[0]
        key = pressed.key.value if isinstance(pressed.key, Keys) else pressed.data
        self.press(KEY_NAMES.get(key, key))

    def invalidate(self) -> None:
        """Draw the screen again (the terminal's, and any other front end's)."""
        self.app.invalidate()
        super().invalidate()

    def quit(self) -> None:
        """Leave the screen (once: a key typed twice must not end it twice)."""
        if self.app.is_running and not self.app.is_done:
            self.app.exit()
        super().quit()

    def fail(self, err: BaseException) -> None:
        """Leave the screen because of a bug, so that the terminal is usable again; ``run``
        raises ``err``."""
        if self.app.is_running and not self.app.is_done:
            self.app.exit(exception=err)
        super().fail(err)
