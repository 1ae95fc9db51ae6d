"""The side screens that take the whole table's place: help, the score sheet, the rules in
force, a hand's summary and the end of the game. Each is a list of lines drawn from the game
for a terminal ``width`` columns wide: prose is wrapped to it, and the columns of a table are
measured in terminal columns (a translation, a wide character or a 3-digit score never moves
them)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import zip_longest

from cli.table.drawing import DOWN, Line, coloured_words, columns, cut, pad, plain, wrap
from p2p10.cards import card_text, sort_key
from p2p10.engine import GameState
from p2p10.i18n import _, ngettext, pgettext
from p2p10.names import shown_name
from p2p10.narrate import HandSummary, Voice
from p2p10.rules import RuleSet, describe_phase, option_help
from p2p10.seat_view import sheet_view

HelpEntry = str | tuple[str, str]
"""A line of a screen's help: a paragraph (marked with ``N_()``; "" for a blank line), or a key
and what it does (the words marked with ``N_()``; the key is the same in every language)."""

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
    """A screen's help in the current language, its cards coloured: a key's words beside it
    (under it on a narrow terminal), a paragraph kept as it is laid out when it fits, wrapped
    when it does not."""
    key_room = max((columns(e[0]) for e in entries if isinstance(e, tuple)), default=0) + 2
    lines = heading(_("Help"), width)
    for entry in entries:
        if isinstance(entry, tuple):
            key, words = entry[0], _(entry[1])
            room = width - 1 - key_room
            if room >= WORDS_MIN:
                parts = wrap(words, room, indent="")
                heads = [pad(key, key_room)] + [" " * key_room] * (len(parts) - 1)
                lines += [[("", " "), ("class:title", head[:len(key)]), ("", head[len(key):]),
                           *coloured_words(part)] for head, part in zip(heads, parts, strict=True)]
            else:
                lines.append([("", " "), ("class:title", key)])
                lines += [coloured_words("   " + part) for part in wrap(words, max(width - 3, 1), indent="")]
        elif not entry:
            lines.append(plain(""))  # not _(""): that is the catalogue's header
        else:
            text = _(entry)
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


def sheet_table(state: GameState, width: int) -> list[Line]:
    """The score sheet's rows: the names, a row per hand (the phase played, a tick when made,
    the points), the totals and the phases made; the legend under them."""
    sheet = sheet_view(state)
    rows = [*sheet.hands, sheet.totals, sheet.made]
    texts = sheet_rows(sheet.heads, sheet.names, rows, width)
    lines = [plain(texts[0], "class:title"), *(plain(t) for t in texts[1:-2]),
             plain(texts[-2], "class:title"), plain(texts[-1]), plain("")]
    return lines + prose(sheet.legend, width, "class:dim")


def sheet_lines(state: GameState, width: int) -> list[Line]:
    """The score sheet with its heading."""
    return [*heading(_("Score sheet"), width), plain(""), *sheet_table(state, width)]


def rules_lines(rules: RuleSet, width: int) -> list[Line]:
    """The rules in force: the options, the phases played and how the game ends, every line
    wrapped to ``width``."""
    lines = [*heading(_("Rules"), width), plain(""),
             *prose(_("In force: {rules}").format(rules=rules.describe()), width, "class:title"), plain("")]
    lines += _option_lines(rules, width)
    lines += [plain(""), *prose(_("Phases played:"), width, "class:title")]
    lines += _phase_lines(rules, width)
    lines.append(plain(""))
    for text in (_game_end(rules),
                 _("A turn: draw; lay down your whole phase once, then hit any meld; discard."),
                 _("A Skip discarded costs a player of your choice their next turn."),
                 _("Cards left in hand: 1-9 5 points, 10-12 10, Skip 15, Wild 25.")):
        lines += prose(text, width)
    return lines


def _option_lines(rules: RuleSet, width: int) -> list[Line]:
    """Every rule option, ticked where it is in force (with its value), its words beside it
    (under it on a narrow terminal)."""
    active = {o.split("=")[0]: o for o in rules.options()}
    shown = [(active.get(name.split("=")[0]), name, text) for name, text in option_help()]
    name_room = max(columns(on or name) for on, name, _text in shown)
    head_room = 5 + name_room + len(GAP)  # " [x] ", the name, a gap
    lines: list[Line] = []
    for on, name, text in shown:
        style = "" if on else "class:dim"
        head = f" {'[x]' if on else '[ ]'} {pad(on or name, name_room)}{GAP}"
        room = width - head_room
        if room >= WORDS_MIN:
            for index, part in enumerate(wrap(text, room, indent="")):
                lines.append(plain((head if index == 0 else " " * head_room) + part, style))
        else:
            lines.append(plain(head.rstrip(), style))
            lines += [plain("      " + part, style) for part in wrap(text, max(width - 6, 1), indent="")]
    return lines


def _phase_lines(rules: RuleSet, width: int) -> list[Line]:
    """The phases played, numbered, in two columns where they fit, else one (wrapped)."""
    played = [f"{phase:>2}: {describe_phase(phase)}" for phase in rules.phase_list]
    room = max(columns(p) for p in played)
    half = (len(played) + 1) // 2
    if 3 + room + 2 + room <= width:
        return [plain(f"   {pad(left, room)}  {right}".rstrip())
                for left, right in zip_longest(played[:half], played[half:], fillvalue="")]
    return [plain("   " + part) for entry in played for part in wrap(entry, max(width - 3, 1), indent="    ")]


def _game_end(rules: RuleSet) -> str:
    """How the game ends: after a number of hands, or after the hand a phase count is made."""
    if rules.hands:
        return ngettext("The game ends after {n} hand; everybody moves on every hand; the lowest total "
                        "wins (a tie replays).",
                        "The game ends after {n} hands; everybody moves on every hand; the lowest total "
                        "wins (a tie replays).", rules.hands).format(n=rules.hands)
    return ngettext("The game ends after the hand in which somebody has made {n} phase; the lowest "
                    "total wins (a tie replays).",
                    "The game ends after the hand in which somebody has made {n} phases; the lowest "
                    "total wins (a tie replays).", rules.phases_to_win).format(n=rules.phases_to_win)


def summary_table(summary: HandSummary, names: Sequence[str], voice: Voice, width: int) -> list[Line]:
    """A hand's end in a table: per seat the phase, the points, the total and the cards left;
    who replays a tie."""
    result = summary.result
    names = [shown_name(n) for n in names]
    room = max(columns(n) for n in short_names(names, NAME_ROOM))
    names = short_names(names, room)
    titles = [pgettext("hand summary", "phase"), pgettext("hand summary", "points"),
              pgettext("hand summary", "total"), pgettext("hand summary", "cards left")]
    seats: list[int] = []
    rows: list[tuple[str, str, str]] = []
    for seat, points in enumerate(result.points):
        if points is None:
            continue
        phase = result.phase[seat]
        made = (_("{phase} made {tick}").format(phase=phase, tick=DOWN) if result.made[seat]
                else _("{phase} not made").format(phase=phase))
        seats.append(seat)
        rows.append((made, str(points), str(summary.totals[seat])))
    sizes = [max([columns(titles[i])] + [columns(row[i]) for row in rows]) for i in range(3)]
    lines = [plain(f" {pad('', room)}  {pad(titles[0], sizes[0])} {pad(titles[1], sizes[1], '>')} "
                   f"{pad(titles[2], sizes[2], '>')}  {titles[3]}", "class:title")]
    for seat, (made, score, total) in zip(seats, rows, strict=True):
        head = (f" {pad(names[seat], room)}  {pad(made, sizes[0])} {pad(score, sizes[1], '>')} "
                f"{pad(total, sizes[2], '>')}  ")
        left = " ".join(card_text(c) for c in sorted(summary.left[seat] or (), key=sort_key))
        parts = wrap(left, max(width - columns(head), 3), indent="") or [""]  # whole cards on every line
        lines += [[("", head if index == 0 else " " * columns(head)), *coloured_words(part)]
                  for index, part in enumerate(parts)]
    if summary.tie:
        tie = _("A tie: {names} replay their last phase; the first out wins.").format(
            names=voice.all(summary.tie, start=False))
        lines += [plain(""), *prose(tie, width)]
    return lines


def summary_lines(summary: HandSummary, names: Sequence[str], voice: Voice, width: int) -> list[Line]:
    """One hand's end: who went out, and per seat the phase, cards left, points, total."""
    result = summary.result
    you = voice.is_you(result.went_out)
    if result.tie:
        title = (_("Hand {n} (tie replay) is over: you went out.") if you
                 else _("Hand {n} (tie replay) is over: {name} went out."))
    else:
        title = _("Hand {n} is over: you went out.") if you else _("Hand {n} is over: {name} went out.")
    title = title.format(n=summary.number, name=voice.name(result.went_out))
    return [*heading(title, width), plain(""), *summary_table(summary, names, voice, width)]


def over_lines(state: GameState, summaries: Sequence[HandSummary], voice: Voice, width: int) -> list[Line]:
    """The end of the game: the winner, the last hand's summary and the score sheet."""
    winner = state.winner
    if winner is None:
        lines = heading(_("The game stopped before its end."), width)
    else:
        points = state.totals[winner]
        if voice.is_you(winner):
            won = ngettext("Game over: you win with {n} point!",
                           "Game over: you win with {n} points!", points)
        else:
            won = ngettext("Game over: {name} wins with {n} point!",
                           "Game over: {name} wins with {n} points!", points)
        lines = heading(won.format(name=voice.name(winner), n=points), width)
    lines.append(plain(""))
    if summaries:
        lines += summary_table(summaries[-1], state.names, voice, width)
        lines.append(plain(""))
    lines += sheet_table(state, width)
    return lines
