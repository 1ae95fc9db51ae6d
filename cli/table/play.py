"""``p2p10 play``'s screen in a terminal: the user's seat at a table
(:class:`~cli.seat.play.PlaySeat`, the model: what the keys and clicks do, the questions they
ask) drawn with prompt_toolkit, by keys and by mouse."""

from __future__ import annotations

from functools import partial

from cli.seat.play import PlaySeat, TitleView
from cli.table.board import Board
from cli.table.drawing import Handler, Line, click, plain, shorten, tagged, width
from p2p10.engine import GameState
from p2p10.i18n import _, ngettext
from protocol.seat_screen import SeatScreen


class TableApp(PlaySeat, Board):
    """The user at a table (:class:`~cli.seat.play.PlaySeat`) in a terminal: ``run()`` shows
    the table and returns when the user leaves. A resumed game's story is told once the table
    is drawn (``tell_later``; see :meth:`~cli.seat.play.PlaySeat.tell_story`)."""

    def __init__(self, seat: SeatScreen, ascii_only: bool = False, tell_later: bool = False) -> None:
        PlaySeat.__init__(self, seat, tell_later=True)  # the story once the terminal is built
        self.build_terminal(ascii_only)
        if not tell_later:
            self.catch_up()

    async def run(self) -> None:
        """Show the table and play until the user leaves."""
        def start() -> None:
            self.app.create_background_task(self._follow_the_table())

        await self.app.run_async(pre_run=start)

    async def _follow_the_table(self) -> None:
        # The table is drawn before this task first runs (prompt_toolkit draws right after
        # pre_run), so a resumed game's story is told with the table already in sight.
        await self.tell_story()
        try:
            await self.table_seat.run()
        except Exception as err:  # a bug, or a table entry that contradicts the roster: show why
            self.fail(err)
            return
        self._changed()

    def title(self, state: GameState | None) -> Line:
        """The title line (see :meth:`title_line`)."""
        return self.title_line(self.title_view(state))

    def title_line(self, view: TitleView) -> Line:
        """The hand number and whose turn it is, and the rules in force as the last fragment
        when there is room. Where the pane is too narrow, the rules go first, then the turn's
        words are abbreviated, then the hand's; a name is shortened at a word, never cut."""
        hands, style, name = view.hand, view.style, view.name
        limit = self.left_width()
        rules: Line = [("class:dim", f"  ({view.rules})")]
        forms: list[Line] = [
            [("class:title", hands[0]), (style, view.words())],
            [("class:title", hands[0]), (style, view.words(short=True))],
            [("class:title", hands[1]), (style, view.words(short=True))],
        ]
        if width(forms[0] + rules) <= limit:
            return forms[0] + rules
        for line in forms:
            if width(line) <= limit:
                return line
        room = limit - width(forms[-1]) + width([("", name)])
        short = shorten(name, room, self.ellipsis) or name
        return [("class:title", hands[1]), (style, view.words(short=True, name=short))]

    def piles_note(self) -> Line | None:
        """A progress bar while the deck is shuffled and dealt."""
        progress = self.table_seat.dealing()
        if progress is None or self.table_seat.over:
            return None
        done, total = progress
        # TRANSLATORS: beside the progress bar of a deal: "[████░░░] 5/12 steps".
        steps = ngettext("{done}/{total} step", "{done}/{total} steps", total).format(done=done, total=total)
        words = "  " + _("Shuffling and dealing") + " "
        # The bar gives way to the words in a narrow pane (20 cells where there is room).
        cells = max(5, min(20, self.left_width() - width(plain(words + steps)) - 3))
        filled = cells * done // max(total, 1)
        bar = "█" * filled + "░" * (cells - filled)
        return [("", words), ("class:warn", f"[{bar}]"), ("", f" {steps}")]

    def footer(self) -> list[Line]:
        """The actions, lit when the rules allow them now, then the keys that move, show and
        leave, flowed together (as few lines as the terminal allows: each is a line the
        table does not have)."""
        return self.keys_lines(self.footer_items())

    def meld_clicked(self, meld_id: int) -> Handler | None:
        """A click on a meld hits the selected cards on it."""
        return click(partial(self.hit, meld_id))

    def card_clicked(self, index: int) -> Handler | None:
        """A click on a card puts the cursor there and selects or unselects it."""
        return click(partial(self.toggle_card, index))

    def piles_parts(self, state: GameState) -> tuple[Line, Line]:
        """The piles; a click on the draw pile draws, on the discard pile takes or discards."""
        draw, discard = super().piles_parts(state)
        return (tagged(draw, click(partial(self.pile_clicked, "draw"))),
                tagged(discard, click(partial(self.pile_clicked, "discard"))))

