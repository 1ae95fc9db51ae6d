"""What a screen shows, as plain data any front end can draw: the terminal's table and the
browser's page are two drawings of these values, built once here.

Everything is a frozen dataclass of strings, numbers, booleans and lists, ready for JSON
(:func:`as_json`). Texts are in the current language (:mod:`p2p10.i18n`); the front end adds
none of its own about the game. A card is shown by :class:`CardView`: its notation as the
terminal writes it (``R7``, ``W``, ``S``), its name in words for a screen reader ("red 7"), and
the colour and number it is drawn with.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, is_dataclass
from typing import Any

from p2p10.cards import COLOURS, card_text, colour, is_skip, is_wild, number
from p2p10.engine import GameState
from p2p10.i18n import _, ngettext, pgettext
from p2p10.melds import Meld, colour_name, label_text
from p2p10.moves import hand_fit
from p2p10.names import shown_name
from p2p10.rules import describe_phase

DOWN = "✓"
"""The mark of a phase laid down (the terminal's ``--ascii`` translates it)."""


@dataclass(frozen=True, slots=True)
class CardView:
    """One card as a screen draws it.

    ``id`` is the card's identity (0..107), ``text`` its notation ("R7"), ``words`` its name
    in the current language ("red 7", "Wild"), ``suit`` the colour it is drawn in: ``r``,
    ``b``, ``g``, ``y``, or ``w`` for a Wild and ``s`` for a Skip; ``rank`` what its corner
    shows ("7", "W", "S").
    """

    id: int
    text: str
    words: str
    suit: str
    rank: str


def card_words(card: int) -> str:
    """A card's name in words, in the current language: "red 7", "Wild", "Skip"."""
    if is_wild(card):
        return pgettext("card", "Wild")
    if is_skip(card):
        return pgettext("card", "Skip")
    # TRANSLATORS: a card named in words for a screen reader: "red 7".
    return pgettext("card", "{colour} {number}").format(colour=colour_name(colour(card)),
                                                       number=number(card))


def card_view(card: int) -> CardView:
    """The :class:`CardView` of card ``card``."""
    if is_wild(card):
        suit, rank = "w", "W"
    elif is_skip(card):
        suit, rank = "s", "S"
    else:
        suit, rank = COLOURS[colour(card)].lower(), str(number(card))
    return CardView(card, card_text(card), card_words(card), suit, rank)


@dataclass(frozen=True, slots=True)
class MeldView:
    """A meld on the table: ``letter`` (A, B, ...) is the one a hit chooses it by, ``name``
    says what it is ("set of 7s", "run 3-6")."""

    id: int
    letter: str
    name: str
    cards: tuple[CardView, ...]


def meld_view(meld: Meld) -> MeldView:
    """The :class:`MeldView` of ``meld``."""
    return MeldView(meld.id, chr(ord("A") + meld.id), label_text(meld.kind, meld.label, len(meld.cards)),
                    tuple(card_view(card) for card in meld.cards))


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A seat as the table shows it: its name (a bot's level translated), whether it is the
    viewer's (``me``) and whose turn it is; the phase it plays (None where none is shown: the
    game is over, or the seat sits this hand out), described in words, and ``down`` once laid
    down; its cards in hand (None where no count is shown), its points, the Skips waiting for
    it (``skips_text`` says so, "" for none), its melds, the count and points in words
    ("10 cards", "25 pts"), and ``away`` (a LAN table's note on a player out of reach, else
    None)."""

    seat: int
    name: str
    me: bool
    turn: bool
    phase: int | None
    phase_words: str
    down: bool
    cards: int | None
    points: int
    skips: int
    skips_text: str
    melds: tuple[MeldView, ...]
    cards_text: str = ""
    points_text: str = ""
    away: str | None = None


def seat_row(state: GameState, seat: int, me: int | None) -> SeatRow:
    """Seat ``seat`` of ``state`` as the viewer ``me`` (None: a spectator) sees it."""
    turn = state.stage in ("draw", "play") and state.turn == seat
    phase = state.phase_of(seat) if seat in state.seats_in_hand or state.stage == "deal" else None
    if state.stage == "over":
        phase = None
    in_play = state.stage in ("draw", "play", "reveal")
    cards = len(state.hands[seat]) if seat in state.seats_in_hand and in_play else None
    skips = state.pending_skips[seat]
    skips_text = ("" if not skips else _("skipped next") if skips == 1
                  else _("skipped {n} turns").format(n=skips))
    melds = tuple(meld_view(m) for m in state.melds if m.owner == seat) if in_play else ()
    points = state.totals[seat]
    return SeatRow(seat, shown_name(state.names[seat]), seat == me, turn, phase,
                   describe_phase(phase) if phase is not None else "", state.down[seat] is not None,
                   cards, points, skips, skips_text, melds,
                   ngettext("{n} card", "{n} cards", cards).format(n=cards) if cards is not None else "",
                   # TRANSLATORS: a player's penalty points so far, short: "25 pts".
                   _("{n} pts").format(n=points))


def seat_rows(state: GameState, me: int | None) -> list[SeatRow]:
    """Every seat of ``state``, in seat order, as the viewer ``me`` sees it."""
    return [seat_row(state, seat, me) for seat in range(state.players)]


@dataclass(frozen=True, slots=True)
class PilesView:
    """The draw pile's count, and the discard pile's top card (None: empty) and whether it may
    be taken."""

    stock: int
    top: CardView | None
    takeable: bool


def piles_view(state: GameState) -> PilesView:
    """The piles of ``state``."""
    top = state.top_discard()
    return PilesView(len(state.stock), card_view(top) if top is not None else None,
                     top is not None and state.takeable(top))


@dataclass(frozen=True, slots=True)
class HandFit:
    """The cards of the viewer's hand to highlight (as slots), and the line that says why."""

    slots: frozenset[int]
    text: str


def hand_fit_view(state: GameState, me: int | None) -> HandFit:
    """What the highlighted cards of ``me``'s hand mean: the cards that fit a meld on the
    table once the phase is down, else the phase so far and how far it is."""
    fit = hand_fit(state, me) if me is not None else None
    if fit is None:
        return HandFit(frozenset(), "")
    if fit.down:
        return HandFit(fit.slots, _("Highlighted: cards that fit a meld (h hits them).") if fit.slots
                       else _("Phase made; no card of yours fits a meld now."))
    if fit.phase is None:
        return HandFit(frozenset(), _("This hand is far from any phase you may lay down."))
    if fit.short == 0:
        return HandFit(fit.slots, _("You hold phase {phase}: l lays it down.").format(phase=fit.phase))
    return HandFit(fit.slots, ngettext("Highlighted: your phase {phase} so far, {n} card short.",
                                       "Highlighted: your phase {phase} so far, {n} cards short.",
                                       fit.short).format(phase=fit.phase, n=fit.short))


@dataclass(frozen=True, slots=True)
class SheetView:
    """The score sheet: ``heads`` name the rows ("Hand", each hand's number or "7 tie",
    "Total", "Made"); ``names`` head the columns; ``hands`` hold a cell per seat per hand
    ("P2✓ 15": the phase played, a tick when made, the points; "-" sat out), then
    ``totals`` and ``made`` (phases made); ``legend`` explains the cells."""

    heads: tuple[str, ...]
    names: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    totals: tuple[str, ...]
    made: tuple[str, ...]
    legend: str


def sheet_view(state: GameState) -> SheetView:
    """The score sheet of ``state``: a hand's cell is its phase (with a tick when made) and its
    points, "P2✓ 15", or "-" for a hand sat out (a front end that lines them up in text columns
    pads them itself: ``cli.table.panels.padded``)."""
    def cell(phase: int | None, made: bool, points: int | None) -> str:
        if points is None:
            return "-"
        return f"P{phase}{DOWN if made else ''} {points}" if phase is not None else str(points)

    hands = tuple(tuple(cell(*seat) for seat in zip(result.phase, result.made, result.points, strict=True))
                  for result in state.sheet)
    # TRANSLATORS: a hand of the score sheet that was a tie replay: "7 tie".
    tie = _("{n} tie")
    heads = (pgettext("score sheet", "Hand"),
             *(tie.format(n=i + 1) if r.tie else str(i + 1) for i, r in enumerate(state.sheet)),
             pgettext("score sheet", "Total"), pgettext("score sheet", "Made"))
    # TRANSLATORS: the score sheet's legend; {tick} is the mark of a phase made.
    legend = _("(P2{tick}: phase 2 made that hand. Points are penalties: the lowest total wins.)")
    return SheetView(heads, tuple(shown_name(n) for n in state.names), hands,
                     tuple(str(t) for t in state.totals), tuple(str(len(m)) for m in state.made),
                     legend.format(tick=DOWN))


def as_json(value: Any) -> Any:
    """``value`` (dataclasses, tuples, lists, dicts of them) as plain JSON values."""
    if is_dataclass(value) and not isinstance(value, type):
        return {key: as_json(item) for key, item in asdict(value).items()}
    if isinstance(value, dict):
        return {str(key): as_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_json(item) for item in value]
    return value
