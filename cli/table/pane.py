"""The table pane: the other seats with their phase, score, cards in hand and melds, the draw
and discard piles, and one seat's hand, drawn in text from a :class:`~p2p10.engine.GameState`
and the board's cursor and selection (:class:`~cli.seat.board.SeatBoard`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from prompt_toolkit.application.current import get_app
from prompt_toolkit.formatted_text import StyleAndTextTuples

from cli.seat.board import SeatBoard
from cli.table.drawing import (
    ASCII_ELLIPSIS,
    BACK,
    BOX_BOTTOM,
    BOX_SIDE,
    BOX_TOP,
    CURSOR,
    DOWN,
    ELLIPSIS,
    HEAVY_BOTTOM,
    HEAVY_SIDE,
    HEAVY_TOP,
    RULE,
    TURN,
    Handler,
    Line,
    card_class,
    card_fragment,
    cards_line,
    clip,
    columns,
    flow,
    join,
    plain,
    tagged,
    width,
)
from p2p10.cards import card_text
from p2p10.engine import GameState
from p2p10.i18n import _, ngettext, pgettext
from p2p10.melds import Meld, label_text
from p2p10.rules import describe_phase
from p2p10.seat_view import meld_view, piles_view, seat_row


class TablePane(SeatBoard):
    """The table pane of a :class:`~cli.seat.board.SeatBoard` in a terminal. The screens built
    on it provide the title line and what the terminal leaves for the pane, and set ``ascii``
    (``--ascii``: no box-drawing characters)."""

    ascii = False

    # ----------------------------------------------------------------- to be provided

    def title(self, state: GameState | None) -> Line:
        """The first line of the table pane."""
        raise NotImplementedError

    def body_rows(self) -> int:
        """Rows for the pane (above the status line and the keys)."""
        raise NotImplementedError

    def left_width(self) -> int:
        """Columns of the table pane."""
        raise NotImplementedError

    def piles_note(self) -> Line | None:
        """Something to show instead of the piles (dealing progress), if any."""
        return None

    def meld_clicked(self, meld_id: int) -> Handler | None:
        """What a click on a meld does (nothing here)."""
        return None

    def card_clicked(self, index: int) -> Handler | None:
        """What a click on the hand's card at ``index`` does (nothing here)."""
        return None

    @property
    def ellipsis(self) -> str:
        """How a text shortened at a word ends ("..." with --ascii)."""
        return ASCII_ELLIPSIS if self.ascii else ELLIPSIS

    def size(self) -> tuple[int, int]:
        """(columns, rows) of the terminal."""
        size = get_app().output.get_size()
        return size.columns, size.rows

    # ------------------------------------------------------------------- the hand

    def hand_hint_shown(self, state: GameState, limit: int) -> str:
        """The line under the hand in the first of its forms that fits ``limit`` columns (the
        last whatever its width)."""
        hints = self.hand_hints(state)
        return next((hint for hint in hints if columns(hint) <= limit), hints[-1])

    def hand_lines(self, state: GameState, limit: int, frames: bool = True) -> list[Line]:
        """The shown hand: cards in frames (or in text, with ``frames`` False or where frames
        do not fit), the selected ones raised a row, the highlighted ones heavier
        (underlined), the cursor marked under its card."""
        slots = self.hand_slots(state)
        if not slots:
            return []
        fits = self.fits(state)[0]
        raised = self.raised()
        framed = frames and not self.ascii and 5 * len(slots) <= limit
        rows: list[Line] = [[] for _row in range(4 if framed else 2)]
        marks: Line = []
        for index, slot in enumerate(slots):
            card = state.known[slot]
            fit = slot in fits
            here = index == self.cursor
            face = card_class(card) + (" class:fit" if fit else "") + (" class:cursor" if here else "")
            handler = self.card_clicked(index)
            if framed:
                _framed_card(rows, card, face, fit, slot in raised, handler)
                marks.append(("class:warn", f"{CURSOR if here else '':^5}"))
            else:
                _text_card(rows, card, face, slot in raised, handler)
                mark = (CURSOR if here else " ") + ("*" if fit and self.ascii else " ")
                marks.append(("class:warn", f"{mark:<4}"))
        return [*rows, marks]

    # ------------------------------------------------------------------- the seats

    def seat_line(self, state: GameState, seat: int) -> Line:
        """A seat's name, phase chip, cards in hand, score and Skips waiting for it."""
        row = seat_row(state, seat, self.me)
        line: Line = [("class:warn", f"{TURN} " if row.turn else "  "),
                      ("class:title" if row.turn else "", row.name)]
        if row.phase is not None:
            line += [("", "  "), ("class:chip", f" P{row.phase}{DOWN if row.down else ''} ")]
        if row.cards_text:
            line.append(("", "  " + row.cards_text))
        line.append(("", "  " + row.points_text))
        if row.skips_text:
            line.append(("class:warn", "  " + row.skips_text))
        if width(line) > self.left_width():  # a long language: one space between the parts
            line = line[:2] + [(f[0], " " + f[1][2:], *f[2:]) if f[1].startswith("  ") else f
                               for f in line[2:]]
        return line

    def meld_lines(self, state: GameState, seat: int, limit: int) -> list[Line]:
        """A seat's melds on the table, lettered A, B, ... (the letter a hit chooses), wrapped."""
        if state.stage not in ("draw", "play", "reveal"):
            return []
        lines: list[Line] = []
        line: Line = [("", "    ")]
        for meld in state.melds:
            if meld.owner != seat:
                continue
            piece = self.meld_piece(meld)
            if width(line) > 4 and width(line) + 2 + width(piece) > limit:
                lines.append(line)
                line = [("", "    ")]
            elif width(line) > 4:
                line.append(("", "  "))
            line += piece
        if width(line) > 4:
            lines.append(line)
        return [clip(x, limit) for x in lines]

    def meld_piece(self, meld: Meld) -> Line:
        """One meld: its letter, its name and its cards."""
        view = meld_view(meld)
        piece: Line = [("class:meld", view.letter), ("class:dim", f" {view.name} ")]
        return tagged(piece + cards_line(meld.cards), self.meld_clicked(meld.id))

    def meld_names(self, state: GameState, seat: int) -> Line:
        """A seat's melds in one short line: each by its letter and name, without its cards
        (where the table is too small for them)."""
        line: Line = []
        for meld in state.melds:
            if meld.owner != seat:
                continue
            name = label_text(meld.kind, meld.label, len(meld.cards))
            piece: Line = [("class:meld", chr(ord("A") + meld.id)), ("class:dim", f" {name}")]
            line += [("", "  ")] * bool(line) + tagged(piece, self.meld_clicked(meld.id))
        return line

    def all_melds_lines(self, state: GameState, limit: int) -> list[Line]:
        """Every meld on the table in full, under its owner's name (the side screen that the
        melds key opens, for a table too small to show them all)."""
        lines: list[Line] = [plain(" " + _("Melds on the table"), "class:header"), plain("")]
        for seat in range(state.players):
            melds = self.meld_lines(state, seat, limit)
            if melds:
                lines += [plain("  " + state.names[seat], "class:title"), *melds]
        if len(lines) == 2:
            lines.append(plain("  " + _("No meld is on the table yet."), "class:dim"))
        return lines

    def piles_line(self, state: GameState) -> Line:
        """The draw pile's count and the discard pile's top card."""
        note = self.piles_note()
        if note is not None:
            return note
        if state.stage not in ("draw", "play", "reveal"):
            return plain("")
        draw, discard = self.piles_parts(state)
        if width(draw + discard) > self.left_width():  # a long language: the piles closer together
            discard = [(discard[0][0], "  " + discard[0][1].lstrip(" "), *discard[0][2:]), *discard[1:]]
        if width(draw + discard) > self.left_width():  # and a note that does not fit left out
            discard = discard[:2]
        return draw + discard

    def piles_parts(self, state: GameState) -> tuple[Line, Line]:
        """The piles line in its two parts, the draw pile's and the discard pile's (a click
        on one is not a click on the other)."""
        piles = piles_view(state)
        draw: Line = [("", "  " + _("Draw pile") + " "), ("class:dim", BACK * 2), ("", f" {piles.stock}")]
        discard: Line = [("", "     " + _("Discard pile") + " ")]
        if piles.top is None:
            discard.append(("class:dim", pgettext("pile", "empty")))
        else:
            discard.append(card_fragment(piles.top.id, "class:chip"))
            if not piles.takeable:
                discard.append(("class:dim", " " + _("(cannot be taken)")))
        return draw, discard

    # ------------------------------------------------------------------- the pane

    def _left_text(self) -> StyleAndTextTuples:
        state = self.state()
        limit = self.left_width()
        rows = self.body_rows()
        lines = flow(self.title(state), limit, 2, "  ", self.ellipsis)  # a long title on two lines
        if state is None:
            return join([*lines, plain(""), plain("  " + _("Opening the table..."))])
        others = [s for s in range(state.players) if s != self.me]
        seats = [*others, *([self.me] if self.me is not None else [])]
        blocks = [_SeatMelds(self._seat_head(state, s), self.meld_lines(state, s, limit),
                             self.meld_names(state, s)) for s in seats]
        # Every meld stays in sight: where the melds do not fit in full, they go by name, then
        # beside their owner's name; the line under the hand, then the cards' frames give
        # way to them; only then are some left out (as few as can be, the line and the
        # frames kept if that leaves out no more), with a line that says so and the key that
        # shows them all.
        layouts: list[tuple[int, int, list[Line], list[tuple[Line, list[Line]]]]] = []
        for hint, frames in ((True, True), (False, True), (False, False)):
            mine = self._own_part(state, limit, hint, frames)
            room = rows - (len(lines) + len(others) + 1 + len(mine))  # title, seats, piles, own part
            shown, hidden = _arranged(blocks, room, limit)
            layouts.append((hidden, len(layouts), mine, shown))
            if not hidden:
                break
        hidden, _index, mine, shown = min(layouts, key=lambda layout: layout[:2])
        for head, melds in shown[:len(others)]:
            lines.append(head)
            lines += melds
        if hidden:
            lines.append(plain("  " + ngettext("{n} meld not shown here: m shows every meld",
                                               "{n} melds not shown here: m shows every meld",
                                               hidden).format(n=hidden), "class:warn"))
        if self.me is not None:
            head, melds = shown[-1]
            mine = [mine[0], head, *melds, *mine[2:]]
        if len(lines) + 2 + len(mine) <= rows:  # a blank line before the piles, if it fits
            lines.append(plain(""))
        lines.append(self.piles_line(state))
        lines += mine
        return join([clip(line, limit) for line in lines])

    def _seat_head(self, state: GameState, seat: int) -> Line:
        """A seat's line; the viewer's own with the phase it plays, where that fits the pane."""
        line = self.seat_line(state, seat)
        phase = state.phase_of(seat) if seat == self.me and state.stage != "over" else None
        if phase is not None:
            described: Line = [("class:dim", f"  {describe_phase(phase)}")]
            if width(line + described) <= self.left_width():
                line += described
        return line

    def _own_part(self, state: GameState, limit: int, hint: bool = True, frames: bool = True) -> list[Line]:
        """The viewer's own seat under a rule: the rule, its line, and its hand with the line
        that says what the hand's highlights mean (``hint``), in frames if ``frames``; its
        melds go after its line (nothing for a spectator)."""
        if self.me is None:
            return []
        mine = [plain(RULE * limit, "class:dim"), self._seat_head(state, self.me)]
        hand = self.hand_lines(state, limit, frames)
        mine += hand
        words = self.hand_hint_shown(state, limit) if hand and hint else ""
        if words:
            mine += flow(plain(words, "class:dim"), limit, 2, "  ", self.ellipsis)
        elif state.stage == "deal":
            mine.append(plain("  " + _("The cards are being shuffled and dealt..."), "class:dim"))
        return mine


@dataclass(frozen=True, slots=True)
class _SeatMelds:
    """A seat's line and its melds: in full (wrapped lines) and by name (one line)."""

    head: Line
    full: list[Line]
    names: Line

    @property
    def count(self) -> int:
        """How many melds the seat has down."""
        return sum(1 for fragment in self.names if fragment[0] == "class:meld")

    def one_line(self) -> list[Line]:
        """The melds in one line: in full if they fit one, else by name."""
        if len(self.full) <= 1:
            return self.full
        return [[("", "    "), *self.names]]


def _arranged(blocks: Sequence[_SeatMelds], room: int,
              limit: int) -> tuple[list[tuple[Line, list[Line]]], int]:
    """Each seat's line and meld lines in ``room`` lines in all, and how many melds were left
    out for want of room (a line saying so then takes one of them). In full if they fit;
    else one line per seat (by name where the full line does not fit), seats given their
    melds in full again while there is room; else by name beside the seat's name where that
    fits; else the last seats' melds left out."""
    if sum(len(b.full) for b in blocks) <= room:
        return [(b.head, b.full) for b in blocks], 0
    heads = [b.head for b in blocks]
    chosen = [b.one_line() for b in blocks]
    used = sum(len(lines) for lines in chosen)
    if used <= room:
        for index in sorted(range(len(blocks)), key=lambda i: len(blocks[i].full)):
            extra = len(blocks[index].full) - len(chosen[index])
            if used + extra <= room:
                chosen[index] = blocks[index].full
                used += extra
        return list(zip(heads, chosen, strict=True)), 0
    for index, block in enumerate(blocks):
        if used <= room:
            break
        beside = [*block.head, ("", "  "), *block.names]
        if chosen[index] and width(beside) <= limit:
            heads[index], chosen[index] = beside, []
            used -= 1
    hidden = 0
    if used > room:
        keep = max(room - 1, 0)  # a line says what is left out
        for index in range(len(blocks)):
            if chosen[index]:
                if keep > 0:
                    keep -= 1
                else:
                    hidden += blocks[index].count
                    chosen[index] = []
    return list(zip(heads, chosen, strict=True)), hidden


def _framed_card(rows: list[Line], card: int, face: str, fit: bool, up: bool,
                 handler: Handler | None) -> None:
    """One card of a hand drawn in a frame (heavier where it fits) onto the hand's four
    ``rows``: its three rows in the lower three, or the upper three where it is raised."""
    top, side, bottom = (HEAVY_TOP, HEAVY_SIDE, HEAVY_BOTTOM) if fit else (BOX_TOP, BOX_SIDE, BOX_BOTTOM)
    frame = card_class(card)
    pieces: list[Line] = [[(frame, top)], [(frame, side), (face, f"{card_text(card):^3}"), (frame, side)],
                          [(frame, bottom)]]
    first = 0 if up else 1
    for row in range(4):
        blank: Line = [("", " " * 5)]
        part = pieces[row - first] if first <= row < first + 3 else blank
        rows[row] += tagged(part, handler)


def _text_card(rows: list[Line], card: int, face: str, up: bool, handler: Handler | None) -> None:
    """One card of a hand drawn as text onto the hand's two ``rows``: in the lower one, or
    the upper one where it is raised."""
    text = card_text(card)
    for row in range(2):
        shown = (row == 0) == up
        rows[row] += tagged([(face if shown else "", f"{text if shown else '':<3}"), ("", " ")], handler)
