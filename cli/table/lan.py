"""The play screen at a LAN table in a terminal: the LAN seat's model
(:class:`~cli.seat.lan.LanPlaySeat`: the same table as ``p2p10 play``, played by the mesh, with
table chat, and what the table is waiting for) drawn as at home, with the chat line typed in
the status line."""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import ConditionalContainer, HSplit, Window
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.processors import BeforeInput

from cli.seat.lan import PACE_KEYS, LanPlaySeat
from cli.seat.play import News
from cli.table.board import STATUS_ROWS
from cli.table.drawing import BOX_BOTTOM, BOX_SIDE, BOX_TOP, Line, clip, columns, flow, shorten, width
from cli.table.play import TableApp
from p2p10.engine import GameState
from p2p10.i18n import N_, _, pgettext
from p2p10.wire import MAX_CHAT
from protocol.lan import LanSeat

# TRANSLATORS: the chat line being typed starts with this.
CHAT_PROMPT = N_("Say:")


def _chat_prompt() -> str:
    return " " + _(CHAT_PROMPT) + " "


class LanTableApp(LanPlaySeat, TableApp):
    """The play screen for a seat at a LAN table (:class:`~cli.seat.lan.LanPlaySeat`) in a
    terminal: table chat typed in the status line (a prompt_toolkit
    :class:`~prompt_toolkit.buffer.Buffer`), and the title redrawn every second (who the table
    has been waiting for, and how long)."""

    def __init__(self, seat: LanSeat, ascii_only: bool = False, tell_later: bool = False) -> None:
        self.chatting = False
        self.chat = Buffer(multiline=False, on_text_changed=_at_most_a_chat_line)
        LanPlaySeat.__init__(self, seat, tell_later=True)  # the story once the terminal is built
        self.build_terminal(ascii_only)
        self.app.refresh_interval = 1.0  # the "waiting for" line changes with no new entry
        if not tell_later:
            self.catch_up()

    # ------------------------------------------------------------------------ chat

    def status_line(self) -> Container:
        """The status line, or the chat line being typed (Enter sends it, Esc drops it)."""
        keys = KeyBindings()
        keys.add("enter")(lambda _event: self._send())
        keys.add("escape", eager=True)(lambda _event: self._end_chat())  # at once: no longer key here
        typing = Condition(lambda: self.chatting)
        control = BufferControl(self.chat, input_processors=[BeforeInput(_chat_prompt, "class:warn")],
                                key_bindings=keys, focusable=typing)
        self._chat_control = control
        return HSplit([ConditionalContainer(super().status_line(), filter=~typing),
                       ConditionalContainer(Window(control, height=1), filter=typing)])

    @property
    def typing(self) -> str | None:
        """The chat line being typed, or None."""
        return self.chat.text if self.chatting else None

    def start_chat(self) -> None:
        """The chat key: the line for typing opens in the status line."""
        self.chatting = True
        self.app.layout.focus(self._chat_control)

    def _end_chat(self) -> None:
        self.chatting = False
        self.chat.reset()
        self.app.layout.focus_last()
        self.invalidate()

    def _send(self) -> None:
        text = self.chat.text
        self._end_chat()
        self.send_chat(text)

    def press(self, key: str) -> None:
        """A key, or a click on the footer: while a chat line is typed, its Enter sends it and
        its Esc drops it."""
        if not self.chatting:
            super().press(key)
        elif key == "Enter":
            self._send()
        elif key == "Esc":
            self._end_chat()

    # ------------------------------------------------------------------- the table

    def title(self, state: GameState | None) -> Line:
        """As at home, with who the table is waiting for (thinking, or out of reach) and who
        has agreed to go on without them first, after the hand's number (a long name shortened
        at a word, so that how long fits): the pane shortens the line at a word from its end,
        and the rules in force come last, if they fit whole."""
        view = self.title_view(state)
        line = self.title_line(view)
        rules = f"  ({view.rules})"
        if line and line[-1][1] == rules:
            line = line[:-1]
        room = self.left_width() - width(line[:1])
        news: Line = [(item.style, self._news(item, room)) for item in view.news]
        line = [*line[:1], *news, *line[1:]]
        if width(line) + width([("", rules)]) <= self.left_width():
            line.append(("class:dim", rules))
        return line

    def hand_hints(self, state: GameState) -> list[str]:
        """As the model says; under the question whether to go on without a player (which a
        narrow status line may cut to its first sentence), what is lost, and why, as much as
        fits (nothing if none does)."""
        if not self.asking_go_on() or self.prompt is None:
            return super().hand_hints(state)
        why = self.go_on_why()
        asked = "".join(part[1] for part in self.prompt_line(self.prompt, self.size()[0]))
        lost = self._go_on_lost
        lines = [why] if lost in asked else [f"{lost} {why}", lost, why]  # the question was cut
        return [line.strip() for line in lines if line.strip()] + [""]

    def _card_line(self) -> tuple[str, bool] | None:
        """While the user's drawn card is on its way, the line under the hand as it fits the
        pane, and whether it says when the table may go on without that machine too (the
        status line need not say it again)."""
        lines = self.card_lines()
        if lines is None:
            return None
        if len(lines) > 1 and columns(lines[0]) <= self.left_width():
            return lines[0], True
        return lines[-1], False

    def hand_lines(self, state: GameState, limit: int, frames: bool = True) -> list[Line]:
        """The shown hand, with the card on its way after it, face down and dim: the hand is
        as many cards as the seat line counts."""
        lines = super().hand_lines(state, limit, frames)
        if not lines or self._card_from() is None:
            return lines
        *rows, marks = lines
        if len(rows) == 4 and width(rows[1]) + 5 <= limit:  # in frames
            pieces: list[Line] = [[("", " " * 5)], [("class:dim", BOX_TOP)],
                                  [("class:dim", BOX_SIDE + " ? " + BOX_SIDE)], [("class:dim", BOX_BOTTOM)]]
            rows = [row + piece for row, piece in zip(rows, pieces, strict=True)]
            marks = [*marks, ("", " " * 5)]
        else:
            rows = [*rows[:-1], [*rows[-1], ("class:dim", "?   ")]]
        return [*rows, marks]

    def status_lines(self) -> list[Line]:
        """The status line, or the chat line being typed (its own window); on a hand's summary,
        that the next hand has come to the user's turn; when it has nothing else to say (no
        answer to a key, no question), when the table may go on without a machine out of reach."""
        if self.chatting:
            return [clip([("class:warn", _chat_prompt()), ("", self.chat.text)], self.size()[0])]
        if self.prompt is not None:
            return super().status_lines()
        card = self._card_line()
        note = self.status_note(card is not None and card[1])  # (said under the hand already)
        if note is None:
            return super().status_lines()
        return flow([("", " "), ("class:warn", note)], self.size()[0], STATUS_ROWS, "  ", self.ellipsis)

    def _news(self, news: News, room: int) -> str:
        """A part of the title, in ``room`` columns if a shorter name (its first words) makes
        it fit; two spaces after it."""
        text = news.text()
        if columns(text) > room:
            short = shorten(news.name, room - (columns(text) - columns(news.name)), self.ellipsis)
            if short:
                text = news.text(short)
        return text + "  "

    def footer(self) -> list[Line]:
        """The keys, with chat, and going on without a player whose machine is away."""
        if self.chatting:
            return self.keys_lines([("Enter", pgettext("key", "send"), True),
                                    ("Esc", pgettext("key", "cancel"), True)])
        lines = super().footer()
        return [*lines[:-1], *self.keys_lines(self.lan_keys()), lines[-1]]

    def keys_lines(self, items: Sequence[tuple[str, str, bool]]) -> list[Line]:
        """The keys, less the bots' pace (+ -) where this screen does not set it (at a LAN
        table, never: a key that can do nothing is not offered)."""
        if self.table_seat.pace is None:
            items = [item for item in items if item[0] not in PACE_KEYS]
        return super().keys_lines(items)


def _at_most_a_chat_line(buffer: Buffer) -> None:
    """Keep a chat line being typed to what one line of chat may hold."""
    if len(buffer.text) > MAX_CHAT:
        buffer.text = buffer.text[:MAX_CHAT]
