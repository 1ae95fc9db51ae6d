"""Melds: sets, runs and colour groups; checking them and hitting cards onto them.

A meld's wilds take a fixed value when it is laid down and keep it for the hand. The value
of every card follows from the meld's *label*: a set's number, a run's lowest value (its
cards are kept in ascending order, so a wild's value is its position), a colour group's
colour.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from p2p10.cards import (
    COLOUR_NAMES,
    COLOURS,
    MAX_NUMBER,
    MIN_NUMBER,
    card_text,
    cards_text,
    colour,
    is_natural,
    is_skip,
    number,
)
from p2p10.i18n import N_, _, ngettext, pgettext
from p2p10.rules import MeldKind

End = Literal["low", "high"]


class MeldError(ValueError):
    """Cards that do not make the meld asked for; the message says why, in words."""


@dataclass(frozen=True, slots=True)
class Meld:
    """A meld on the table.

    ``slots`` and ``cards`` run in parallel; a run's are in ascending order of value.
    """

    id: int
    owner: int
    kind: MeldKind
    label: int
    slots: tuple[int, ...]
    cards: tuple[int, ...]

    @property
    def values(self) -> tuple[int, ...]:
        """The value each card stands for: a number, or a colour index for colour groups."""
        if self.kind == "run":
            return tuple(range(self.label, self.label + len(self.cards)))
        return (self.label,) * len(self.cards)

    @property
    def high(self) -> int:
        """A run's highest value."""
        return self.label + len(self.cards) - 1

    def describe(self) -> str:
        """'set of 7s: R7 B7 W', 'run 3-6: W R4 G5 Y6', 'red: R1 R5 W ...'."""
        return f"{label_text(self.kind, self.label, len(self.cards))}: {cards_text(self.cards)}"


# A colour group's name by its colour (a whole name each: the colour agrees with "group").
_GROUP_NAMES = (
    # TRANSLATORS: a meld of cards of one colour, on the table: "red group: R1 R5 W ...".
    N_("red group"),
    N_("blue group"),
    N_("green group"),
    N_("yellow group"),
)


def label_text(kind: MeldKind, label: int, length: int) -> str:
    """A meld's name from its kind and label: 'set of 7s', 'run 3-6', 'red group', in the
    current language."""
    if kind == "set":
        # TRANSLATORS: a set on the table, by its number: "set of 7s" (every card a 7).
        return _("set of {number}s").format(number=label)
    if kind == "run":
        # TRANSLATORS: a run on the table, by its lowest and highest numbers: "run 3-6".
        return _("run {low}-{high}").format(low=label, high=label + length - 1)
    return _(_GROUP_NAMES[label])


def colour_name(index: int) -> str:
    """A colour's name alone ('red'), in the current language."""
    names = (pgettext("colour", "red"), pgettext("colour", "blue"), pgettext("colour", "green"),
             pgettext("colour", "yellow"))
    return names[index]


def and_text(items: Sequence[str]) -> str:
    """``items`` joined with "and" in the current language: '1 and 4 and 10'."""
    text = items[0]
    for item in items[1:]:
        # TRANSLATORS: two things of a list (of numbers, colours or melds); a longer list
        # repeats it: "1 and 4 and 10".
        text = _("{first} and {second}").format(first=text, second=item)
    return text


def value_text(kind: MeldKind, value: int) -> str:
    """A wild's value as text: a number, or a colour letter for colour groups."""
    return COLOURS[value] if kind == "color" else str(value)


def check_meld(
    kind: MeldKind,
    cards: Sequence[int],
    min_size: int,
    label: int | None = None,
    need_natural: bool = True,
) -> int:
    """Check that ``cards`` make a meld of ``kind`` with at least ``min_size`` cards.

    Runs are given in ascending order (a wild's position is its value). ``label`` may name
    the set's number, the run's lowest value or the group's colour; it is needed only when
    no numbered card settles it (an all-wild meld under ``natural=phase``).

    Returns the label. Raises :class:`MeldError` with a readable reason.
    """
    # TRANSLATORS: stands for the cards of a meld in the messages about melds ("{cards} is not
    # a set") when no card was given.
    shown = cards_text(cards) or _("no cards")
    for card in cards:
        if is_skip(card):
            raise MeldError(_("a Skip can never be part of a meld"))
    naturals = [c for c in cards if is_natural(c)]
    if need_natural and not naturals:
        raise MeldError(_("{cards} has no numbered card; every meld needs at least one").format(cards=shown))
    if kind == "set":
        value = _check_set(cards, naturals, label, shown)
    elif kind == "run":
        value = _check_run(cards, label, shown)
    else:
        value = _check_colour(naturals, label, shown)
    # Length last, so a short run with a gap is told about the gap ("R4 R5 R7 has a gap at 6").
    if len(cards) < min_size:
        raise MeldError(ngettext("{cards} is {n} card, not {size}", "{cards} is {n} cards, not {size}",
                                 len(cards)).format(cards=shown, n=len(cards), size=min_size))
    return value


def _check_set(cards: Sequence[int], naturals: list[int], label: int | None, shown: str) -> int:
    numbers = sorted({number(c) for c in naturals})
    if len(numbers) > 1:
        raise MeldError(_("{cards} is not a set: it mixes {numbers}").format(
            cards=shown, numbers=and_text([str(n) for n in numbers])))
    value = numbers[0] if numbers else label
    if value is None:
        raise MeldError(_("{cards} is all wilds: say which number the set stands for").format(cards=shown))
    if label is not None and label != value:
        raise MeldError(_("{cards} is a set of {value}s, not of {label}s").format(
            cards=shown, value=value, label=label))
    if not MIN_NUMBER <= value <= MAX_NUMBER:
        raise MeldError(_("a set's number must be 1 to 12, not {value}").format(value=value))
    return value


def _check_run(cards: Sequence[int], label: int | None, shown: str) -> int:
    start = label
    for index, card in enumerate(cards):
        if is_natural(card):
            implied = number(card) - index
            if start is None:
                start = implied
            elif implied != start:
                expected = start + index
                if number(card) > expected:
                    raise MeldError(_("{cards} has a gap at {number}").format(cards=shown, number=expected))
                message = _("{cards} is not in ascending order: {card} cannot stand at {number}")
                raise MeldError(message.format(cards=shown, card=card_text(card), number=expected))
    if start is None:
        raise MeldError(_("{cards} is all wilds: say where the run starts").format(cards=shown))
    if start < MIN_NUMBER:
        raise MeldError(_("{cards} would need a card below 1; runs go from 1 to 12 and do not wrap").format(
            cards=shown))
    if start + len(cards) - 1 > MAX_NUMBER:
        raise MeldError(_("{cards} would need a card above 12; runs go from 1 to 12 and do not wrap").format(
            cards=shown))
    return start


def _check_colour(naturals: list[int], label: int | None, shown: str) -> int:
    if label is not None and not 0 <= label < len(COLOURS):
        # Checked before any lookup by the label: it comes from the wire.
        known = ", ".join(f"{i} {colour_name(i)}" for i in range(len(COLOUR_NAMES)))
        raise MeldError(_("label {label} is no colour (the colours are {known})").format(
            label=label, known=known))
    colours = sorted({colour(c) for c in naturals})
    if len(colours) > 1:
        names = and_text([colour_name(c) for c in colours])
        raise MeldError(_("{cards} is not one colour: it mixes {colours}").format(cards=shown, colours=names))
    value = colours[0] if colours else label
    if value is None:
        raise MeldError(_("{cards} is all wilds: say which colour the group is").format(cards=shown))
    if label is not None and label != value:
        # TRANSLATORS: {colour} and {label} are colours' names alone ("red", "blue").
        raise MeldError(_("{cards} is {colour}, not {label}").format(
            cards=shown, colour=colour_name(value), label=colour_name(label)))
    return value


def hit_ends(meld: Meld, card: int) -> tuple[End | None, ...]:
    """Where ``card`` can be hit on ``meld``: ``(None,)`` for a set or colour group it fits,
    ``("low",)``, ``("high",)`` or both for a run, ``()`` when it does not fit."""
    if is_skip(card):
        return ()
    wild = not is_natural(card)
    if meld.kind == "set":
        return (None,) if wild or number(card) == meld.label else ()
    if meld.kind == "color":
        return (None,) if wild or colour(card) == meld.label else ()
    ends: list[End] = []
    if meld.label > MIN_NUMBER and (wild or number(card) == meld.label - 1):
        ends.append("low")
    if meld.high < MAX_NUMBER and (wild or number(card) == meld.high + 1):
        ends.append("high")
    return tuple(ends)


def hit(meld: Meld, slot: int, card: int, end: End | None) -> Meld:
    """The meld with ``card`` added; raises :class:`MeldError` when it does not fit there."""
    ends = hit_ends(meld, card)
    if meld.kind != "run":
        if end is not None:
            message = (_("the {meld} has no low end: only runs have ends") if end == "low"
                       else _("the {meld} has no high end: only runs have ends"))
            raise MeldError(message.format(meld=meld.describe()))
        if not ends:
            raise MeldError(_("{card} does not fit the {meld}").format(
                card=card_text(card), meld=meld.describe()))
        return Meld(meld.id, meld.owner, meld.kind, meld.label,
                    meld.slots + (slot,), meld.cards + (card,))
    if end is None and len(ends) == 1:
        end = ends[0]
    if end not in ends:
        if end is None and len(ends) == 2:
            reason = _("say which end of the {meld} the wild goes on")
        elif end == "low":
            reason = _("{card} does not fit the {meld} at the low end")
        elif end == "high":
            reason = _("{card} does not fit the {meld} at the high end")
        else:
            reason = _("{card} does not fit the {meld}")
        raise MeldError(reason.format(card=card_text(card), meld=meld.describe()))
    if end == "low":
        return Meld(meld.id, meld.owner, "run", meld.label - 1,
                    (slot,) + meld.slots, (card,) + meld.cards)
    return Meld(meld.id, meld.owner, "run", meld.label, meld.slots + (slot,), meld.cards + (card,))
