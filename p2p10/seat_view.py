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
from p2p10.i18n import pgettext
from p2p10.melds import colour_name


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


def as_json(value: Any) -> Any:
    """``value`` (dataclasses, tuples, lists, dicts of them) as plain JSON values."""
    if is_dataclass(value) and not isinstance(value, type):
        return {key: as_json(item) for key, item in asdict(value).items()}
    if isinstance(value, dict):
        return {str(key): as_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_json(item) for item in value]
    return value
