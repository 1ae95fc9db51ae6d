"""The hint key: the advised move is the strong bot's own, and the reason says why in words."""

from __future__ import annotations

import random
import re
from typing import get_args

import pytest

from p2p10 import advice as advice_module
from p2p10.advice import (
    ADVISOR_LEVEL,
    TEMPLATES,
    Advice,
    MeldName,
    NoAdvice,
    Reason,
    ReasonKind,
    advise,
    meld_text,
    reason_text,
)
from p2p10.bots import HIT_SEARCH_NODES, POLICIES, Policy, hits_after
from p2p10.cards import COLOUR_NAMES, card_text, parse_face, parse_hand
from p2p10.engine import GameState
from p2p10.events import Discard, DrawStock, Hit, LayDown, SeatEvent, TakeDiscard
from p2p10.rules import RuleSet
from p2p10.simulate import play_game
from tests.scenario import Game

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay")
CARD = re.compile(r"(?<![A-Za-z0-9])([RBGY](?:1[0-2]|[1-9])|W|S)(?![A-Za-z0-9])")


def _cards_named(reason: Reason) -> list[int]:
    named = [c for c in (reason.card, reason.other) if c is not None]
    return named + (_cards_named(reason.clause) if reason.clause is not None else [])


def _check_visible(state: GameState, seat: int, advice: Advice) -> None:
    """Every card the reason names, as data and in its words, is one the seat has seen."""
    seen = state.seen_by(seat).known.values()
    assert all(card in seen for card in _cards_named(advice.reason_parts)), advice
    faces = {card_text(c) for c in seen}
    for token in CARD.findall(advice.reason):
        assert token in faces, (token, advice.reason)
        parse_face(token)


# ---------------------------------------------------------------- the bot's own move


@pytest.mark.parametrize(("level", "rules", "players", "seed"), [
    (ADVISOR_LEVEL, RuleSet(), 4, 1),
    (ADVISOR_LEVEL, RuleSet(), 2, 2),
    (ADVISOR_LEVEL, RuleSet.parse(["order=any"]), 3, 3),
    (ADVISOR_LEVEL, RuleSet.parse(["hit=own", "skip=next"]), 5, 4),
    (ADVISOR_LEVEL, RuleSet.parse(["natural=phase", "skip_stacking"]), 6, 5),
    (ADVISOR_LEVEL, RuleSet.parse(["phases=even", "hands=3"]), 4, 6),
    # The reasons hold for the other strong level too (one constant switches the advisor).
    ("normal", RuleSet(), 4, 7),
    ("normal", RuleSet.parse(["order=any", "hit=own"]), 3, 8),
])
def test_the_advised_move_is_the_strong_bots_move(level: str, rules: RuleSet, players: int, seed: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """At every decision of a seeded game, whoever's turn it is, the advice is exactly what the
    advising bot plays from that seat's view with the same random source, its reason is a
    sentence of the templates, and it names only cards that seat has seen."""
    monkeypatch.setattr(advice_module, "ADVISOR_LEVEL", level)
    advisor = POLICIES[level]
    checked: list[str] = []

    def watching(policy: Policy) -> Policy:
        def play(view: GameState, seat: int, rng: random.Random) -> SeatEvent:
            key = rng.randrange(2**32)
            advice = advise(view, seat, NAMES[:players], random.Random(key))
            assert advice.move == advisor(view, seat, random.Random(key))
            assert advice.reason == reason_text(advice.reason_parts, NAMES[:players])
            assert len(advice.reason) <= 80, advice.reason
            _check_visible(view, seat, advice)
            checked.append(advice.reason_parts.kind)
            return policy(view, seat, rng)
        return play

    lineup = ["hard", "normal", "greedy", "easy", "random", "hard"][:players]
    play_game([watching(POLICIES[name]) for name in lineup], rules, random.Random(seed))
    assert len(checked) > 50
    if level == "hard":
        # Some moves were decided by what only hard weighs, and the reason says so.
        only_hard = {"take_goes_down", "hit_opens", "discard_keeps_down", "discard_danger", "discard_bridge"}
        assert only_hard & set(checked), sorted(set(checked))


def test_advice_reads_only_what_the_seat_may_see() -> None:
    """The full-information state and the seat's redacted view give the same advice."""
    rules = RuleSet.parse(["hands=1"])
    record = play_game([POLICIES["greedy"]] * 3, rules, random.Random(9))
    state = GameState(3, rules)
    seen = 0
    for event in record.events:
        waiting = state.awaiting()
        if waiting.kind == "move" and waiting.seat is not None and not state.unrevealed_in_hands():
            full = advise(state, waiting.seat, NAMES[:3], 5)
            assert full == advise(state.seen_by(waiting.seat), waiting.seat, NAMES[:3], 5)
            seen += 1
        state = state.apply(event)
    assert seen > 20


def test_no_advice_out_of_turn() -> None:
    game = _deal(2, {"A": "R1 R2 R3 R4 R5 R6 R8 R9 R10 R11", "B": "Y1 Y3 G6 B9 Y11 G2 B4 R12 G8 Y6"},
                 up="B4")
    assert game.state.turn == 1
    with pytest.raises(NoAdvice, match="Bob's turn, not yours"):
        advise(game.state, 0, NAMES[:2], 1)
    with pytest.raises(NoAdvice, match="no hand"):
        advise(GameState(2), 0, NAMES[:2], 1)


# ---------------------------------------------------------------- crafted states

def _deal(players: int, hands: dict[str, str], up: str, stock: str = "",
          made: tuple[tuple[int, ...], ...] | None = None) -> Game:
    """A hand dealt as given (the dealer is Ann, so Bob plays first)."""
    game = Game(GameState.start(players, RuleSet(), NAMES[:players], made=made))
    game.deal({**hands, "up": up, **({"stock": stock} if stock else {})})
    return game


def _advice(game: Game, seat: int) -> Advice:
    players = game.state.players
    advice = advise(game.state, seat, NAMES[:players], 11)
    assert advice.move == POLICIES[ADVISOR_LEVEL](game.state.seen_by(seat), seat, random.Random(11))
    _check_visible(game.state, seat, advice)
    return advice


def test_a_discard_the_next_player_collects_is_kept() -> None:
    """Bob took a 12 from the discard pile for his sets: Ann's dearest spare card is her Y12,
    but she throws another and the reason says why."""
    game = _deal(2, {"A": "R7 B7 R5 B5 Y12 R1 G3 Y4 B2 G8", "B": "R12 B12 Y1 G6 B9 Y11 G2 B4 R3 G9"},
                 up="G12", stock="Y6")
    game.do("B take")
    game.do("B discard Y1")
    game.do("A draw")
    advice = _advice(game, 0)
    assert isinstance(advice.move, Discard) and card_text(advice.move.card) != "Y12"
    assert advice.reason_parts.kind == "discard_avoid"
    assert advice.reason == f"discard {card_text(advice.move.card)}, not Y12: Bob collects 12s"


def test_taking_a_discard_that_makes_a_set_or_the_phase() -> None:
    game = _deal(2, {"A": "R7 B7 R5 B5 Y12 R1 G3 Y4 B2 G8", "B": "Y1 Y3 G6 B9 Y11 G2 B4 R12 G7 Y6"},
                 up="B10", stock="R11")
    game.do("B draw")
    game.do("B discard G7")
    advice = _advice(game, 0)
    assert advice.move == TakeDiscard(0)
    assert advice.reason == "take G7 from the discard pile: it makes your set of 7s"

    game = _deal(2, {"A": "R7 B7 R5 B5 G5 R1 G3 Y4 B2 G8", "B": "Y1 Y3 G6 B9 Y11 G2 B4 R12 G7 Y6"},
                 up="B10", stock="R11")
    game.do("B draw")
    game.do("B discard G7")
    advice = _advice(game, 0)
    assert advice.move == TakeDiscard(0)
    assert advice.reason == "take G7 from the discard pile: with it you can lay down phase 1"


def test_drawing_when_the_discard_fits_nothing() -> None:
    game = _deal(2, {"A": "R7 B7 R5 B5 Y12 R1 G3 Y4 B2 G8", "B": "Y1 Y3 G6 B9 Y11 G2 B4 R12 G7 Y6"},
                 up="B10", stock="R11")
    game.do("B draw")
    game.do("B discard Y11")
    advice = _advice(game, 0)
    assert advice.move == DrawStock(0)
    assert advice.reason == "draw from the pile: the Y11 on the discard pile fits nothing of yours"


def test_laying_down_then_hitting_another_players_run() -> None:
    """Both play phase 2; Bob lays down a run 1-4 first, Ann lays down and then hits her G5 on
    it."""
    made = ((1,), (1,))
    game = _deal(2, {"A": "R7 B7 G7 R9 R10 R11 R12 G5 Y3 B1",
                     "B": "R8 B8 G8 Y1 Y2 Y3 Y4 G11 B6 R2"},
                 up="G12", stock="B12 Y9", made=made)
    game.do("B draw")
    game.do("B down 2: R8 B8 G8 | Y1 Y2 Y3 Y4")
    game.do("B discard G11")
    game.do("A draw")
    advice = _advice(game, 0)
    assert isinstance(advice.move, LayDown)
    assert advice.reason == "lay down phase 2: set of 7s and run 9-12"
    game.apply(advice.move)
    advice = _advice(game, 0)
    assert isinstance(advice.move, Hit) and card_text(advice.move.card) == "G5"
    assert advice.reason == "hit G5 on Bob's run 1-4"


def test_a_skip_goes_to_whoever_is_closest_to_going_out() -> None:
    """Bob is down with four cards left, Cy is not down: Ann's Skip is for Bob."""
    game = _deal(3, {"A": "S R1 G3 Y5 B7 R9 G11 Y2 B4 R6",
                     "B": "R8 B8 G8 Y5 R5 B5 G11 B6 R2 Y12",
                     "C": "Y1 Y3 G6 B9 Y11 G2 B4 R12 G7 Y6"},
                 up="G12", stock="B12 Y9 R10")
    game.do("B draw")
    game.do("B down 1: R8 B8 G8 | Y5 R5 B5")
    game.do("B discard B12")
    game.do("C draw")
    game.do("C discard Y11")
    game.do("A draw")
    advice = _advice(game, 0)
    assert isinstance(advice.move, Discard) and advice.move.target == 1
    assert advice.reason == "discard S to skip Bob, who is closest to going out"


def test_a_skip_goes_to_whoever_made_the_most_phases() -> None:
    game = _deal(3, {"A": "S R1 G3 Y5 B7 R9 G11 Y2 B4 R6",
                     "B": "R8 B8 G6 Y5 R3 B5 G11 B6 R2 Y12",
                     "C": "Y1 Y3 G6 B9 Y11 G2 B4 R12 G7 Y6"},
                 up="G12", stock="B12 Y9 R10", made=((), (), (1,)))
    game.do("B draw")
    game.do("B discard B12")
    game.do("C draw")
    game.do("C discard Y11")
    game.do("A draw")
    advice = _advice(game, 0)
    assert isinstance(advice.move, Discard) and advice.move.target == 2
    assert advice.reason == "discard S to skip Cy, who has made the most phases"


# ---------------------------------------------------------------- what only hard weighs

def _normal(game: Game, seat: int) -> SeatEvent:
    return POLICIES["normal"](game.state.seen_by(seat), seat, random.Random(11))


def test_hard_takes_a_discard_that_goes_down_with_its_phase() -> None:
    """Ann misses one 5 for phase 1 with or without Bob's Y7, but the Y7 would go down with her
    set of 7s: one card fewer to be rid of afterwards. normal draws instead."""
    game = _deal(2, {"A": "R7 B7 G7 R5 B5 R1 G3 Y4 B2 G8", "B": "Y7 Y3 G6 B9 Y11 G2 B4 R12 G10 Y6"},
                 up="B10", stock="R11")
    game.do("B draw")
    game.do("B discard Y7")
    advice = _advice(game, 0)
    assert advice.move == TakeDiscard(0)
    assert advice.reason == "take Y7 from the discard pile: it goes down with phase 1"
    assert _normal(game, 0) == DrawStock(0)


def test_hard_sheds_dear_cards_when_an_opponent_is_about_to_go_out() -> None:
    """Bob is down with two cards; Ann is far from her phase and throws a 10-point card."""
    game = _deal(2, {"A": "R1 G3 Y4 B2 G9 R10 B11 Y6 G12 R3",
                     "B": "R8 B8 G8 Y8 Y5 R5 B5 G5 R9 B12"},
                 up="G2", stock="Y9 G1")
    game.do("B draw")
    game.do("B down 1: R8 B8 G8 Y8 | Y5 R5 B5 G5")
    game.do("B discard B12")
    game.do("A draw")
    advice = _advice(game, 0)
    assert isinstance(advice.move, Discard) and card_text(advice.move.card) in ("R10", "B11", "G12")
    assert advice.reason_parts.kind == "discard_danger"
    assert advice.reason.endswith(": Bob may go out soon, and it costs 10 points")


def _down_on_run_2_8() -> Game:
    """Ann (phase 4) lays down the run 2-8 and keeps R10, two away from its end."""
    game = _deal(2, {"A": "R2 R3 R4 R5 R6 R7 R8 R10 G12 B12", "B": "Y1 Y3 B9 Y11 G2 B4 R12 G7 Y6 B3"},
                 up="G10", stock="Y5 G6 B5 W", made=((1, 2, 3), (1, 2, 3)))
    game.do("B draw")
    game.do("B discard Y11")
    game.do("A draw")
    game.do("A down 4: R2 R3 R4 R5 R6 R7 R8")
    return game


def test_hard_keeps_the_card_one_draw_could_make_hittable() -> None:
    """Down on the run 2-8, Ann holds R10 (a 9 or a wild makes it fit), G12, B12 and G6
    (nothing makes them fit): hard throws a 12 rather than R10 and says why; normal, blind to
    that, throws any of the three 10-point cards (its first is R10)."""
    game = _down_on_run_2_8()
    advice = _advice(game, 0)
    assert isinstance(advice.move, Discard) and card_text(advice.move.card) in ("G12", "B12")
    normal = _normal(game, 0)
    assert isinstance(normal, Discard) and card_text(normal.card) == "R10"
    assert advice.reason == f"discard {card_text(advice.move.card)}, not R10: one draw could let you hit R10"


def test_hard_hits_the_wild_where_a_held_card_follows() -> None:
    """Ann is down on the run 2-8 and holds R10 and a wild: the wild goes on the high end,
    where R10 then fits; normal puts it on the first end it finds."""
    game = _down_on_run_2_8()
    game.do("A discard G12")
    game.do("B draw")
    game.do("B discard Y6")
    game.do("A draw")  # the wild
    advice = _advice(game, 0)
    assert isinstance(advice.move, Hit) and card_text(advice.move.card) == "W" and advice.move.end == "high"
    assert advice.reason == "hit W on your run 2-8: then more of your cards fit"
    normal = _normal(game, 0)
    assert isinstance(normal, Hit) and normal.end == "low"


# ---------------------------------------------------------------- the words

def test_every_kind_of_reason_has_its_template_and_only_known_placeholders() -> None:
    """A kind has one template, or one for each colour (its colour's word agrees with the
    words around it: feed_color.red, ...)."""
    placeholders = {"card", "other", "seat", "number", "meld", "melds", "feed"}
    for kind in get_args(ReasonKind):
        keys = [kind] if kind in TEMPLATES else [f"{kind}.{name}" for name in COLOUR_NAMES]
        for key in keys:
            fields = set(re.findall(r"{(\w+)}", TEMPLATES[key]))
            assert fields <= placeholders, (key, fields)


def test_the_words_come_from_the_templates_given() -> None:
    """A translation is a second set of templates: every word of the sentence comes from it."""
    game = _deal(2, {"A": "R7 B7 R5 B5 Y12 R1 G3 Y4 B2 G8", "B": "R12 B12 Y1 G6 B9 Y11 G2 B4 R3 G9"},
                 up="G12", stock="Y6")
    game.do("B take")
    game.do("B discard Y1")
    game.do("A draw")
    parts = _advice(game, 0).reason_parts
    # Upper case outside the placeholders stands in for another language.
    shouting = {key: re.sub(r"[^{}]+(?={|$)", lambda m: m.group().upper(), text)
                for key, text in TEMPLATES.items()}
    assert reason_text(parts, ["ANN", "BOB"], shouting) == reason_text(parts, ["Ann", "Bob"]).upper()


def test_every_meld_has_its_words_alone_and_with_its_owner() -> None:
    """A colour group's words are a whole template for each colour (its colour agrees with the
    words around it in another language), for the meld alone, yours, and another player's."""
    r7 = parse_hand("R7")[0]
    melds = [MeldName("set", 7, 3), MeldName("run", 3, 4)] + [MeldName("color", c, 7) for c in range(4)]
    bare = ["set of 7s", "run 3-6"] + [f"{name} group" for name in COLOUR_NAMES]
    for meld, words in zip(melds, bare, strict=True):
        assert meld_text(meld) == words
        assert reason_text(Reason("hit", card=r7, meld=meld), NAMES) == f"hit R7 on your {words}"
        theirs = MeldName(meld.kind, meld.label, meld.length, owner=1)
        assert reason_text(Reason("hit", card=r7, meld=theirs), NAMES) == f"hit R7 on Bob's {words}"
    for index, name in enumerate(COLOUR_NAMES):
        clause = Reason("feed_color", seat=2, colour=index)
        assert reason_text(Reason("discard_feeds", card=r7, clause=clause), NAMES) == \
            f"discard R7: it helps you least, though Cy collects {name} cards"


def test_the_hit_search_stops_at_its_budget() -> None:
    """From Ann's wild and R10 beside the run 2-8, two cards can go in a row (the wild on the
    high end, then R10); with a budget of one hit tried, the search stops after that one."""
    game = _down_on_run_2_8()
    game.do("A discard G12")
    game.do("B draw")
    game.do("B discard Y6")
    game.do("A draw")  # the wild
    view = game.state.seen_by(0)
    budget = [HIT_SEARCH_NODES]
    assert hits_after(view, 0, budget=budget) == 2 and 0 < budget[0] < HIT_SEARCH_NODES
    tight = [1]
    assert hits_after(view, 0, budget=tight) == 1 and tight == [0]
