"""The side screens that take the whole table's place: help, the score sheet, the rules in
force, a hand's summary and the end of the game. Each is the plain data of
:mod:`p2p10.screen_view` (the page draws the same data in HTML) laid out as a list of lines for
a terminal ``width`` columns wide: prose is wrapped to it, and the columns of a table are
measured in terminal columns (a translation, a wide character or a 3-digit score never moves
them)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import zip_longest

from cli.table.drawing import Line, coloured_words, columns, cut, pad, plain, wrap
from p2p10.i18n import _
from p2p10.screen_view import (
    HelpEntry,
    HelpView,
    OverView,
    RulesView,
    SummaryView,
    help_view,
)
from p2p10.seat_view import SheetView

__all__ = [
    "HelpEntry",
    "heading",
    "help_lines",
    "help_view_lines",
    "over_lines",
    "prose",
    "rules_lines",
    "sheet_lines",
    "summary_lines",
]

NAME_ROOM = 16  # columns a name may take in a table's column
GAP = "  "  # between the columns of a table
WORDS_MIN = 20  # columns below which a list's words go under their key rather than beside it


def prose(text: str, width: int, style: str = "") -> list[Line]:
    """A paragraph wrapped to ``width`` columns, a column in from the left edge."""
    return [plain(" " + part, style) for part in wrap(text, max(width - 1, 1), indent="")] or [plain("")]


def heading(text: str, width: int) -> list[Line]:
    """A side screen's heading, wrapped."""
    return prose(text, width, "class:header")


def help_lines(entries: Sequence[HelpEntry], width: int) -> list[Line]:
    """A screen's help in the current language (see :func:`help_view_lines`)."""
    return help_view_lines(help_view(entries), width)


def help_view_lines(view: HelpView, width: int) -> list[Line]:
    """A screen's help, its cards coloured: a key's words beside it (under it on a narrow
    terminal), a paragraph kept as it is laid out when it fits, wrapped when it does not."""
    key_room = max((columns(item.key) for item in view.items if item.key), default=0) + 2
    lines = heading(view.title, width)
    for item in view.items:
        if item.key:
            key, words = item.key, item.text
            room = width - 1 - key_room
            if room >= WORDS_MIN:
                parts = wrap(words, room, indent="")
                heads = [pad(key, key_room)] + [" " * key_room] * (len(parts) - 1)
                lines += [[("", " "), ("class:title", head[:len(key)]), ("", head[len(key):]),
                           *coloured_words(part)] for head, part in zip(heads, parts, strict=True)]
            else:
                lines.append([("", " "), ("class:title", key)])
                lines += [coloured_words("   " + part) for part in wrap(words, max(width - 3, 1), indent="")]
        elif not item.text:
            lines.append(plain(""))
        else:
            text = item.text
            shown = text if text.startswith(" ") else " " + text
            if columns(shown) <= width:
                lines.append(coloured_words(shown))
            else:
                lines += [coloured_words(" " + part)
                          for part in wrap(text.strip(), max(width - 1, 1), indent="")]
    return lines


def short_names(names: Sequence[str], room: int) -> list[str]:
    """Names cut to ``room`` columns, the part in brackets (a bot's level) dropped first."""
    out = []
    for name in names:
        if columns(name) > room and name.endswith(")") and " (" in name:
            name = name[:name.rindex(" (")]
        out.append(cut(name, room))
    return out


def sheet_rows(heads: Sequence[str], names: Sequence[str], rows: Sequence[Sequence[str]], width: int
               ) -> list[str]:
    """The score sheet's rows as text, each after its head: the names (cut to fit), then
    ``rows``, every cell right-aligned in a column as wide as the widest cell or name (measured
    in terminal columns), up to :data:`NAME_ROOM` for a name."""
    head_room = max(columns(h) for h in heads)
    data = max((columns(c) for row in rows for c in row), default=1)
    share = (width - 1 - head_room) // len(names) - len(GAP)
    room = max(data, min(NAME_ROOM, share, max(columns(n) for n in names)))
    return [" " + pad(head, head_room) + "".join(GAP + pad(cell, room, ">") for cell in row)
            for head, row in zip(heads, [short_names(names, room), *rows], strict=True)]


def padded(sheet: SheetView) -> SheetView:
    """``sheet`` (as :func:`~p2p10.seat_view.sheet_view` makes it) with a
    hand's phase and points each padded to a common width, so that they line up in a column of
    text (the page's table cells need no padding)."""
    cells = [cell.rpartition(" ")[::2] if cell != "-" else ("", "-") for row in sheet.hands for cell in row]
    phase_room = max((columns(phase) for phase, _point in cells), default=0)
    point_room = max((len(point) for _phase, point in cells), default=0)

    def cell(text: str) -> str:
        if text == "-":
            return "-"
        phase, _sep, point = text.rpartition(" ")
        return f"{pad(phase, phase_room)} {point:>{point_room}}"

    return SheetView(sheet.heads, sheet.names, tuple(tuple(cell(c) for c in row) for row in sheet.hands),
                     sheet.totals, sheet.made, sheet.legend)


def sheet_table(sheet: SheetView, width: int) -> list[Line]:
    """The score sheet's rows: the names, a row per hand (the phase played, a tick when made,
    the points), the totals and the phases made; the legend under them."""
    rows = [*sheet.hands, sheet.totals, sheet.made]
    texts = sheet_rows(sheet.heads, sheet.names, rows, width)
    lines = [plain(texts[0], "class:title"), *(plain(t) for t in texts[1:-2]),
             plain(texts[-2], "class:title"), plain(texts[-1]), plain("")]
    return lines + prose(sheet.legend, width, "class:dim")


def sheet_lines(sheet: SheetView, width: int) -> list[Line]:
    """The score sheet with its heading."""
    return [*heading(_("Score sheet"), width), plain(""), *sheet_table(padded(sheet), width)]


def rules_lines(view: RulesView, width: int) -> list[Line]:
    """The rules in force: the options, the phases played and how the game ends, then a
    table's own sections, every line wrapped to ``width``."""
    lines = [*heading(view.title, width), plain(""), *prose(view.in_force, width, "class:title"), plain("")]
    lines += _option_lines(view, width)
    lines += [plain(""), *prose(view.phases_title, width, "class:title")]
    lines += _phase_lines(view, width)
    lines.append(plain(""))
    for text in view.notes:
        lines += prose(text, width)
    for section in view.sections:
        lines += [plain(""), *heading(section.title, width), plain("")]
        for text in section.paragraphs:
            lines += prose(text, width)
    return lines


def _option_lines(view: RulesView, width: int) -> list[Line]:
    """Every rule option, ticked where it is in force (with its value), its words beside it
    (under it on a narrow terminal)."""
    name_room = max(columns(option.name) for option in view.options)
    head_room = 5 + name_room + len(GAP)  # " [x] ", the name, a gap
    lines: list[Line] = []
    for option in view.options:
        style = "" if option.on else "class:dim"
        head = f" {'[x]' if option.on else '[ ]'} {pad(option.name, name_room)}{GAP}"
        room = width - head_room
        if room >= WORDS_MIN:
            for index, part in enumerate(wrap(option.words, room, indent="")):
                lines.append(plain((head if index == 0 else " " * head_room) + part, style))
        else:
            lines.append(plain(head.rstrip(), style))
            lines += [plain("      " + part, style)
                      for part in wrap(option.words, max(width - 6, 1), indent="")]
    return lines


def _phase_lines(view: RulesView, width: int) -> list[Line]:
    """The phases played, numbered, in two columns where they fit, else one (wrapped)."""
    played = [f"{phase:>2}: {words}" for phase, words in view.phases]
    room = max(columns(p) for p in played)
    half = (len(played) + 1) // 2
    if 3 + room + 2 + room <= width:
        return [plain(f"   {pad(left, room)}  {right}".rstrip())
                for left, right in zip_longest(played[:half], played[half:], fillvalue="")]
    return [plain("   " + part) for entry in played for part in wrap(entry, max(width - 3, 1), indent="    ")]


def summary_table(view: SummaryView, width: int) -> list[Line]:
    """A hand's end in a table: per seat the phase, the points, the total and the cards left;
    who replays a tie."""
    names = [row.name for row in view.rows]
    room = max((columns(n) for n in short_names(names, NAME_ROOM)), default=0)
    names = short_names(names, room)
    titles = view.heads
    rows = [(row.phase_text, str(row.points), str(row.total)) for row in view.rows]
    sizes = [max([columns(titles[i])] + [columns(row[i]) for row in rows]) for i in range(3)]
    lines = [plain(f" {pad('', room)}  {pad(titles[0], sizes[0])} {pad(titles[1], sizes[1], '>')} "
                   f"{pad(titles[2], sizes[2], '>')}  {titles[3]}", "class:title")]
    for name, row, (made, score, total) in zip(names, view.rows, rows, strict=True):
        head = (f" {pad(name, room)}  {pad(made, sizes[0])} {pad(score, sizes[1], '>')} "
                f"{pad(total, sizes[2], '>')}  ")
        left = " ".join(card.text for card in row.left)
        parts = wrap(left, max(width - columns(head), 3), indent="") or [""]  # whole cards on every line
        lines += [[("", head if index == 0 else " " * columns(head)), *coloured_words(part)]
                  for index, part in enumerate(parts)]
    if view.tie:
        lines += [plain(""), *prose(view.tie, width)]
    return lines


def summary_lines(view: SummaryView, width: int) -> list[Line]:
    """One hand's end: who went out, and per seat the phase, cards left, points, total."""
    return [*heading(view.title, width), plain(""), *summary_table(view, width)]


def over_lines(view: OverView, width: int) -> list[Line]:
    """The end of the game: the winner, the last hand's summary and the score sheet, then the
    notes; or why the table stopped, and what follows."""
    if view.sheet is None:  # a table that stopped: said whole, as prose
        lines = [*prose(view.title, width, f"class:{view.tone}"), plain("")]
    else:
        lines = [*heading(view.title, width), plain("")]
    if view.last is not None:
        lines += summary_table(view.last, width)
        lines.append(plain(""))
    if view.sheet is not None:
        lines += sheet_table(padded(view.sheet), width)
    if view.notes and view.sheet is not None:
        lines.append(plain(""))
    for note in view.notes:  # a note with no text is a break between two parts
        style = f"class:{note.tone}" if note.tone else ""
        lines += prose(note.text, width, style) if note.text else [plain("")]
    return lines
