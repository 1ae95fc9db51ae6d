"""Cards: the 108-card deck, one identity per physical card, and the text notation.

Card identities are the integers 0..107:

* 0..95 are the numbered cards: colour ``id // 24``, number ``(id % 24) // 2 + 1``,
  copy ``id % 2`` (two of every colour and number).
* 96..103 are the eight Wilds, 104..107 the four Skips.

The notation used by every command is ``R7``, ``B12``, ``G1``, ``Y9``, ``W`` and ``S``,
case-insensitive on input. Notation names a *face*; two red 7s share the face ``R7`` and
are told apart only by their identity.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from p2p10.errors import BadCard

DECK_SIZE = 108
NUMBERED = 96
WILD_FIRST = 96
SKIP_FIRST = 104
COLOURS = "RBGY"
COLOUR_NAMES = ("red", "blue", "green", "yellow")
MIN_NUMBER = 1
MAX_NUMBER = 12

ALL_CARDS = tuple(range(DECK_SIZE))


def is_wild(card: int) -> bool:
    """True for the eight Wild cards."""
    return WILD_FIRST <= card < SKIP_FIRST


def is_skip(card: int) -> bool:
    """True for the four Skip cards."""
    return card >= SKIP_FIRST


def is_natural(card: int) -> bool:
    """True for a numbered card (the 'natural' cards that every meld needs)."""
    return card < NUMBERED


# number(), colour() and points() of every card identity, computed once: the bots and the
# solver ask millions of times a game, and a tuple lookup is about twice as fast as the
# arithmetic. An integer that is no card identity (no caller passes one) misses the tables and
# gets the arithmetic's answer, as it always did.
_NUMBERS = tuple((card % 24) // 2 + 1 for card in range(NUMBERED))
_COLOURS = tuple(card // 24 for card in range(NUMBERED))


def number(card: int) -> int:
    """The number 1..12 of a numbered card."""
    if card >= NUMBERED:
        raise ValueError(f"{card_text(card)} has no number")
    if card >= 0:
        return _NUMBERS[card]
    return (card % 24) // 2 + 1


def colour(card: int) -> int:
    """The colour index 0..3 (R, B, G, Y) of a numbered card."""
    if card >= NUMBERED:
        raise ValueError(f"{card_text(card)} has no colour")
    if card >= 0:
        return _COLOURS[card]
    return card // 24


def _points(card: int) -> int:
    if is_wild(card):
        return 25
    if is_skip(card):
        return 15
    return 5 if number(card) <= 9 else 10


_POINTS = tuple(_points(card) for card in range(DECK_SIZE))


def points(card: int) -> int:
    """Penalty points of a card left in hand: 1-9 → 5, 10-12 → 10, Skip → 15, Wild → 25."""
    if 0 <= card < DECK_SIZE:
        return _POINTS[card]
    return _points(card)


def face_id(card: int) -> int:
    """A small integer naming the card's face: 0..47 numbered, 48 Wild, 49 Skip."""
    if is_wild(card):
        return 48
    if is_skip(card):
        return 49
    return card // 2


def card_text(card: int) -> str:
    """The notation of a card: ``R7``, ``W``, ``S``."""
    if not 0 <= card < DECK_SIZE:
        raise BadCard(f"card identity {card} is outside 0..{DECK_SIZE - 1}")
    return _TEXTS[card]


def _text(card: int) -> str:
    if is_wild(card):
        return "W"
    if is_skip(card):
        return "S"
    return f"{COLOURS[colour(card)]}{number(card)}"


# Every card's notation, written once (answers and screens write thousands).
_TEXTS = tuple(_text(card) for card in range(DECK_SIZE))


def cards_text(cards: Iterable[int]) -> str:
    """Cards in notation, separated by spaces."""
    return " ".join(card_text(c) for c in cards)


def parse_face(text: str) -> int:
    """Parse one card in notation to its face id (see :func:`face_id`)."""
    token = text.strip().upper()
    if token == "W":
        return 48
    if token == "S":
        return 49
    if len(token) >= 2 and token[0] in COLOURS and token[1:].isdigit():
        value = int(token[1:])
        if MIN_NUMBER <= value <= MAX_NUMBER:
            return COLOURS.index(token[0]) * 12 + value - 1
        raise BadCard(f"{text!r}: numbers run from 1 to 12")
    raise BadCard(f"{text!r} is not a card; write R7, B12, G1, Y9, W (wild) or S (skip)")


def cards_of_face(face: int) -> tuple[int, ...]:
    """Every card identity that shows this face."""
    if face == 48:
        return tuple(range(WILD_FIRST, SKIP_FIRST))
    if face == 49:
        return tuple(range(SKIP_FIRST, DECK_SIZE))
    return (face * 2, face * 2 + 1)


# parse_face of each face's own notation, upper and lower case ("R7", "r7", "W", "w"), and
# cards_of_face of every face: what parse_hand looks up instead of parsing.
_NOTATIONS = ("W", "S", *(f"{c}{n}" for c in COLOURS for n in range(MIN_NUMBER, MAX_NUMBER + 1)))
_FACE_OF_TOKEN = {text: parse_face(text) for text in (*_NOTATIONS, *(t.lower() for t in _NOTATIONS))}
_COPIES = tuple(cards_of_face(face) for face in range(50))


def parse_hand(tokens: Sequence[str] | str) -> tuple[int, ...]:
    """Parse cards in notation to distinct card identities (first free copy of each face).

    Raises :class:`BadCard` naming the offending token, or when the hand holds more copies
    of a face than the deck has (two of each numbered card, eight Wilds, four Skips).
    """
    if isinstance(tokens, str):
        tokens = tokens.replace(",", " ").split()
    used = [0] * len(_COPIES)  # copies of each face taken so far
    out: list[int] = []
    for token in tokens:
        # The usual spellings come from a table (a script sends thousands of hands); anything
        # else, and every mistake with its message, goes through parse_face.
        face = _FACE_OF_TOKEN.get(token) if type(token) is str else None
        if face is None:
            face = parse_face(token)
        copies = _COPIES[face]
        taken = used[face]
        if taken >= len(copies):
            raise BadCard(
                f"too many {token.strip().upper()}: the deck has only {len(copies)}"
            )
        used[face] = taken + 1
        out.append(copies[taken])
    return tuple(out)


def sort_key(card: int) -> tuple[int, int, int]:
    """Order cards by number, then colour; Wilds then Skips last."""
    if card >= NUMBERED:
        return (13 if is_wild(card) else 14, 0, card)
    return (number(card), colour(card), card)
