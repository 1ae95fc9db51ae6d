"""Styled text as both front ends read it: a list of ``(style, text)`` fragments, the style
prompt_toolkit's class names ("class:warn", "class:card.r"), which the page reads as tones; and
the cards' order by colour."""

from __future__ import annotations

import re

from p2p10.cards import COLOURS, colour, is_natural, is_skip, is_wild, number

Fragment = tuple[str, str]
"""One piece of styled text: its style ("class:info", "" for none) and its text."""
Styled = list[Fragment]
"""A line of styled text."""

# Card notation in free text (the move log, the status line), to colour it: R7, B12, W, S as
# whole words.
CARD_WORD = re.compile(r"^[RBGY](?:1[0-2]|[1-9])[,.:;]?$|^[WS][,.:;]?$")


def card_class(card: int) -> str:
    """The style class of a card: its colour, or Wild, or Skip."""
    if is_wild(card):
        return "class:card.w"
    if is_skip(card):
        return "class:card.s"
    return f"class:card.{COLOURS[colour(card)].lower()}"


def colour_key(card: int) -> tuple[int, int, int]:
    """Order cards by colour, then number; Wilds then Skips last."""
    if not is_natural(card):
        return (4 if is_wild(card) else 5, 0, card)
    return (colour(card), number(card), card)


def coloured_words(text: str, style: str = "") -> Styled:
    """Free text with every card in it coloured."""
    out: Styled = []
    for index, word in enumerate(text.split(" ")):
        if index:
            out.append((style, " "))
        core = word.rstrip(",.:;")
        if CARD_WORD.match(word):
            face = core[0]
            out.append((f"class:card.{face.lower()}", core))
            if len(core) < len(word):
                out.append((style, word[len(core):]))
        else:
            out.append((style, word))
    return out

