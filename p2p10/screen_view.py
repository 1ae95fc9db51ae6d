"""The side screens a seat can open, as plain data any front end lays out: a hand's summary,
the game's end, the rules in force, the help, every meld on the table.

Like :mod:`p2p10.seat_view`, every value here is a frozen dataclass of strings, numbers,
booleans and tuples (:func:`~p2p10.seat_view.as_json` makes JSON of it), its texts in the current
language. Nothing is laid out for a width: a table is its heads and cells, prose is a paragraph,
a list is its items. The terminal lays them out in text columns (``cli/table/panels.py``), the
browser in HTML tables, lists and headings (``cli/web/static/table.js``), each at its own width:
two drawings of one screen, never one drawing cut to fit the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2p10.cards import sort_key
from p2p10.engine import GameState
from p2p10.i18n import _, ngettext, pgettext
from p2p10.names import shown_name
from p2p10.narrate import HandSummary, Voice
from p2p10.rules import RuleSet, describe_phase, option_help
from p2p10.seat_view import DOWN, CardView, MeldView, SheetView, card_view, meld_view, sheet_view


@dataclass(frozen=True, slots=True)
class Paragraph:
    """A paragraph of a side screen, and its tone: "" (plain), "title", "dim", "warn" or
    "error" (the terminal's style class of the same name, the page's colour)."""

    text: str
    tone: str = ""


@dataclass(frozen=True, slots=True)
class SummaryRow:
    """One seat's line of a hand's summary: its phase (``made`` or not; ``phase_text`` says
    it: "3 made ✓"), the points the hand cost it, its total after the hand, and the cards it
    was left holding (sorted)."""

    seat: int
    name: str
    phase: int | None
    made: bool
    phase_text: str
    points: int
    total: int
    left: tuple[CardView, ...]


@dataclass(frozen=True, slots=True)
class SummaryView:
    """A hand's end: ``title`` says who went out; ``heads`` name the columns after the name
    (phase, points, total, cards left); a row per seat that played the hand; ``tie`` says who
    replays a tie ("" for none)."""

    number: int
    title: str
    heads: tuple[str, str, str, str]
    rows: tuple[SummaryRow, ...]
    tie: str


def summary_view(summary: HandSummary, names: Sequence[str], voice: Voice) -> SummaryView:
    """The :class:`SummaryView` of ``summary``, its seats called ``names`` and spoken of by
    ``voice`` ("you went out")."""
    result = summary.result
    if result.tie:
        title = (_("Hand {n} (tie replay) is over: you went out.") if voice.is_you(result.went_out)
                 else _("Hand {n} (tie replay) is over: {name} went out."))
    else:
        title = (_("Hand {n} is over: you went out.") if voice.is_you(result.went_out)
                 else _("Hand {n} is over: {name} went out."))
    heads = (pgettext("hand summary", "phase"), pgettext("hand summary", "points"),
             pgettext("hand summary", "total"), pgettext("hand summary", "cards left"))
    rows = []
    for seat, points in enumerate(result.points):
        if points is None:
            continue
        phase, made = result.phase[seat], result.made[seat]
        phase_text = (_("{phase} made {tick}").format(phase=phase, tick=DOWN) if made
                      else _("{phase} not made").format(phase=phase))
        left = tuple(card_view(c) for c in sorted(summary.left[seat] or (), key=sort_key))
        rows.append(SummaryRow(seat, shown_name(names[seat]), phase, made, phase_text, points,
                               summary.totals[seat], left))
    tie = ""
    if summary.tie:
        tie = _("A tie: {names} replay their last phase; the first out wins.").format(
            names=voice.all(summary.tie, start=False))
    return SummaryView(summary.number, title.format(n=summary.number, name=voice.name(result.went_out)),
                       heads, tuple(rows), tie)


@dataclass(frozen=True, slots=True)
class OverView:
    """The game's end: ``title`` says who won (or why the table stopped), in ``tone``; the
    ``winner`` (None: none); the last hand's summary and the score sheet (None where the game
    did not end with one); ``notes`` after them (where the log is, the evidence of a table that
    stopped), a note with no text a break between two parts."""

    title: str
    tone: str
    winner: int | None
    last: SummaryView | None
    sheet: SheetView | None
    notes: tuple[Paragraph, ...] = ()


def over_view(state: GameState, summaries: Sequence[HandSummary], voice: Voice,
              notes: Sequence[Paragraph] = ()) -> OverView:
    """The end of the game of ``state``: the winner, the last of ``summaries`` and the score
    sheet, then ``notes``."""
    winner = state.winner
    if winner is None:
        title = _("The game stopped before its end.")
    else:
        points = state.totals[winner]
        if voice.is_you(winner):
            won = ngettext("Game over: you win with {n} point!",
                           "Game over: you win with {n} points!", points)
        else:
            won = ngettext("Game over: {name} wins with {n} point!",
                           "Game over: {name} wins with {n} points!", points)
        title = won.format(name=voice.name(winner), n=points)
    last = summary_view(summaries[-1], state.names, voice) if summaries else None
    return OverView(title, "title", winner, last, sheet_view(state), tuple(notes))


def stopped_view(title: str, notes: Sequence[Paragraph]) -> OverView:
    """The end of a table that stopped with no winner (nobody answers; a violation): why, in
    ``title``, and what follows in ``notes``; no summary, no score sheet."""
    return OverView(title, "error", None, None, None, tuple(notes))


@dataclass(frozen=True, slots=True)
class RuleOption:
    """A rule option on the rules screen: ``on`` where it is in force, ``name`` as written
    (its value where it is in force: "hands=3"), ``words`` what it does."""

    on: bool
    name: str
    words: str


@dataclass(frozen=True, slots=True)
class Section:
    """A part of a side screen under a heading of its own: its paragraphs."""

    title: str
    paragraphs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RulesView:
    """The rules in force: ``in_force`` in one sentence, every rule option, the phases played
    (numbered), how the game and a turn go (``notes``), and a table's own ``sections`` (a LAN
    table: going on without a player)."""

    title: str
    in_force: str
    options: tuple[RuleOption, ...]
    phases_title: str
    phases: tuple[tuple[int, str], ...]
    notes: tuple[str, ...]
    sections: tuple[Section, ...] = ()


def rules_view(rules: RuleSet, sections: Sequence[Section] = ()) -> RulesView:
    """The :class:`RulesView` of ``rules``, with ``sections`` after it."""
    active = {o.split("=")[0]: o for o in rules.options()}
    options = []
    for name, text in option_help():
        on = active.get(name.split("=")[0])
        options.append(RuleOption(on is not None, on or name, text))
    notes = (game_end_text(rules),
             _("A turn: draw; lay down your whole phase once, then hit any meld; discard."),
             _("A Skip discarded costs a player of your choice their next turn."),
             _("Cards left in hand: 1-9 5 points, 10-12 10, Skip 15, Wild 25."))
    return RulesView(_("Rules"), _("In force: {rules}").format(rules=rules.describe()), tuple(options),
                     _("Phases played:"), tuple((p, describe_phase(p)) for p in rules.phase_list), notes,
                     tuple(sections))


def game_end_text(rules: RuleSet) -> str:
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


HelpEntry = str | tuple[str, str]
"""A line of a screen's help as a screen declares it: a paragraph (marked with ``N_()``; "" for
a blank line), or a key and what it does (the words marked with ``N_()``; the key is the same
in every language)."""


@dataclass(frozen=True, slots=True)
class HelpItem:
    """A line of the help, translated: a ``key`` and what it does, or (``key`` "") a
    paragraph; "" in both is a break between parts."""

    key: str
    text: str


@dataclass(frozen=True, slots=True)
class HelpView:
    """A screen's help: its title, then its lines in order."""

    title: str
    items: tuple[HelpItem, ...]


def help_view(entries: Sequence[HelpEntry]) -> HelpView:
    """The :class:`HelpView` of ``entries``, in the current language."""
    items = []
    for entry in entries:
        if isinstance(entry, tuple):
            items.append(HelpItem(entry[0], _(entry[1])))
        else:  # not _(""): that is the catalogue's header
            items.append(HelpItem("", _(entry) if entry else ""))
    return HelpView(_("Help"), tuple(items))


@dataclass(frozen=True, slots=True)
class SeatMelds:
    """One seat's melds on the table, under its name."""

    seat: int
    name: str
    melds: tuple[MeldView, ...]


@dataclass(frozen=True, slots=True)
class MeldsView:
    """Every meld on the table in full, by owner; ``empty`` says so where there is none."""

    title: str
    seats: tuple[SeatMelds, ...]
    empty: str


def melds_view(state: GameState) -> MeldsView:
    """The melds on the table of ``state``."""
    seats = []
    for seat in range(state.players):
        melds = tuple(meld_view(m) for m in state.melds if m.owner == seat)
        if melds:
            seats.append(SeatMelds(seat, shown_name(state.names[seat]), melds))
    return MeldsView(_("Melds on the table"), tuple(seats), _("No meld is on the table yet."))
