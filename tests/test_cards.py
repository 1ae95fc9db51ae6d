"""Cards: identities, notation, points."""

import pytest

from p2p10.cards import (
    ALL_CARDS,
    DECK_SIZE,
    card_text,
    colour,
    is_natural,
    is_skip,
    is_wild,
    number,
    parse_face,
    parse_hand,
    points,
)
from p2p10.errors import BadCard


def test_deck_has_108_cards_of_the_right_kinds() -> None:
    assert DECK_SIZE == len(ALL_CARDS) == 108
    assert sum(map(is_wild, ALL_CARDS)) == 8
    assert sum(map(is_skip, ALL_CARDS)) == 4
    naturals = [c for c in ALL_CARDS if is_natural(c)]
    faces = {(colour(c), number(c)) for c in naturals}
    assert len(naturals) == 96 and len(faces) == 48


def test_every_card_round_trips_through_notation() -> None:
    texts = [card_text(c) for c in ALL_CARDS]
    assert sorted(parse_hand(texts)) == list(ALL_CARDS)


def test_notation_is_case_insensitive_and_copies_are_distinct() -> None:
    a, b = parse_hand("r7 R7")
    assert a != b and card_text(a) == card_text(b) == "R7"


@pytest.mark.parametrize("text,pts", [("R1", 5), ("G9", 5), ("B10", 10), ("Y12", 10),
                                      ("S", 15), ("W", 25)])
def test_points(text: str, pts: int) -> None:
    assert points(parse_hand([text])[0]) == pts


@pytest.mark.parametrize("bad", ["R13", "R0", "X7", "", "7", "RR", "W1"])
def test_bad_notation_is_refused_by_name(bad: str) -> None:
    with pytest.raises(BadCard):
        parse_face(bad)


def test_too_many_copies_are_refused() -> None:
    with pytest.raises(BadCard, match="only 2"):
        parse_hand("B3 B3 B3")
    with pytest.raises(BadCard, match="only 8"):
        parse_hand(["W"] * 9)
