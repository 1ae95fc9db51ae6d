"""Issue 25, what a newcomer meets on the table screen: every meld in sight at 80x24 with six
seats, a hint whose card the cursor shows and a key that plays it, a Skip prompt numbered as
it reads, and hint reasons that agree with the solver."""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cli.table.drawing import CURSOR
from p2p10.advice import Advice, advise
from p2p10.bots import POLICIES, Policy
from p2p10.cards import NUMBERED, card_text, is_natural, is_skip, is_wild
from p2p10.engine import GameState
from p2p10.events import Discard, DrawStock, Hit, SeatEvent
from p2p10.i18n import set_language
from p2p10.measure import WILD_IDS, missing
from p2p10.melds import label_text
from p2p10.moves import discard_targets
from p2p10.rules import PHASES, RuleSet
from p2p10.simulate import play_game
from p2p10.solver import meld_partners
from protocol.local import USER
from tests.brute import meld_ok
from tests.test_advice import _deal
from tests.test_play_app import Keyboard, Terminal, body_of, table

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay")
SKIP_SEED = 5  # a seed where the user is hinted to throw a Skip with three players to choose from


# ---------------------------------------------------------------- point 14: hint reasons


def shares_a_meld(card: int, hand: tuple[int, ...], phase: int) -> bool:
    """Whether ``card`` and some natural card of ``hand`` can stand in one meld of ``phase``
    (the wilds make up the rest), by the naive reference that shares no code with the solver."""
    for req in PHASES[phase]:
        wilds = list(WILD_IDS[:max(req.size - 2, 0)])
        if any(meld_ok(req.kind, [natural, card, *wilds], req.size, True)
               for natural in hand if is_natural(natural)):
            return True
    return False


@pytest.mark.parametrize(("rules", "players", "seed"), [
    (RuleSet(), 4, 21), (RuleSet(), 6, 22), (RuleSet.parse(["order=any"]), 3, 23),
    (RuleSet.parse(["phases=even"]), 5, 24), (RuleSet.parse(["natural=phase"]), 2, 25),
    (RuleSet(), 3, 26), (RuleSet.parse(["phases=odd"]), 4, 27),
])
def test_a_discard_said_to_fit_nothing_fits_nothing(rules: RuleSet, players: int, seed: int) -> None:
    """At every draw of seeded games (every seat, every hand), a hint that says the card on the
    discard pile fits nothing of the player's is true: no card in hand shares a meld of any
    phase the player may lay down with it; and a hint that says the card brings the player no
    closer to a phase is true by the solver's count of the cards the hand misses."""
    said: list[str] = []

    def watching(policy: Policy) -> Policy:
        def play(view: GameState, seat: int, rng: random.Random) -> SeatEvent:
            if view.stage == "draw" and view.awaiting().kind == "move":
                advice = advise(view, seat, NAMES[:players], 7)
                why = advice.reason_parts
                hand = view.hand_cards(seat)
                if why.kind == "draw_useless":
                    assert why.card is not None
                    for phase in view.allowed_phases(seat):
                        assert not shares_a_meld(why.card, hand, phase), (advice.reason, hand, phase)
                if why.kind == "draw_no_closer":
                    assert why.card is not None and why.number is not None
                    assert missing((*hand, why.card), why.number, rules) >= missing(hand, why.number, rules)
                said.append(why.kind)
            return policy(view, seat, rng)
        return play

    lineup = ["hard", "normal", "greedy", "easy", "hard", "normal"][:players]
    play_game([watching(POLICIES[name]) for name in lineup], rules, random.Random(seed))
    assert {"draw_useless", "draw_no_closer"} <= set(said)


def test_the_issues_hand_a_discard_that_pairs_with_a_held_card_is_not_said_to_fit_nothing() -> None:
    """Ann holds Y11 with two pairs for phase 1; Bob discards B11. Taking it leaves Ann two
    cards short all the same, so the bot draws, and the hint says so, not that B11 fits
    nothing of hers (the issue's "B11 ... fits nothing of yours" while holding Y11)."""
    game = _deal(2, {"A": "R7 B7 R5 B5 Y11 R1 G3 Y4 B2 G8", "B": "Y1 Y3 G6 B9 B11 G2 B4 R12 G7 Y6"},
                 up="B10", stock="R11")
    game.do("B draw")
    game.do("B discard B11")
    advice = advise(game.state, 0, NAMES[:2], 11)
    assert advice.move == DrawStock(0)
    assert advice.reason == "draw from the pile: taking B11 brings you no closer to phase 1"


@given(st.lists(st.integers(0, NUMBERED - 1), min_size=1, max_size=11, unique=True),
       st.integers(0, NUMBERED - 1), st.sampled_from(sorted(PHASES)))
def test_the_solvers_meld_partners_agree_with_the_naive_reference(hand: list[int], card: int,
                                                                  phase: int) -> None:
    """meld_partners (what the hint asks) finds a partner exactly when the naive reference
    does."""
    hand = [c for c in hand if c != card]
    assert bool(meld_partners(card, hand, phase)) == shares_a_meld(card, tuple(hand), phase)


# ---------------------------------------------------------------- points 6 and 7: the hint


def under_cursor(screen: str) -> str:
    """The card a person sees the cursor mark under: the hand's row of marks holds one ▲, and
    the card above it is centred on its column."""
    lines = screen.split("\n")
    row = next(i for i, line in enumerate(lines) if CURSOR in line)
    column = lines[row].index(CURSOR)
    above = [lines[i][column - 1:column + 2].strip() for i in range(max(row - 3, 0), row)]
    cards = [text for text in above if text and text[0] in "RBGYWS" and "─" not in text]
    assert len(cards) == 1, (above, screen)
    return cards[0]


async def hint_then_play(kb: Keyboard, skip: Callable[[Keyboard, Advice], Awaitable[None]] | None = None
                         ) -> list[str]:
    """Play the user's seat to the end of the hand by the hint alone: i, then p. After each
    i, the status line shows the hint and, for a card played from the hand, the cursor is
    under that card. A hinted Skip with a choice of players goes to ``skip`` instead of p.
    The kinds of move played come back."""
    local, app = kb.local, kb.app
    played: list[str] = []
    while True:
        await kb.until(lambda: kb.my_turn() or local.over or app.screen != "table")
        if local.over or app.screen != "table":
            return played
        view = local.view()
        assert local.table is not None
        advice = advise(view, USER, app.spoken, random.Random(local.table.seq))
        await kb.keys("i")
        screen = kb.screen()
        assert "Hint: " + advice.reason[:30] in screen.replace("\n", " "), screen
        move = advice.move
        if isinstance(move, Discard | Hit):
            assert under_cursor(screen) == card_text(move.card), (advice.reason, screen)
        before = kb.entries()
        if skip is not None and isinstance(move, Discard) and is_skip(move.card) \
                and len(discard_targets(view, USER, move.card)) > 1:
            await skip(kb, advice)
        else:
            await kb.keys("p")
        await kb.until(lambda: kb.entries() > before)  # noqa: B023 - awaited at once
        entry = local.user.log[before]
        assert entry.author == USER and entry.kind == "move"
        expected = body_of(move)
        assert entry.body[1:1 + len(expected)] == expected, (advice.reason, entry.body[:5])
        played.append(type(move).__name__)


async def test_the_hint_puts_the_cursor_on_its_card_and_p_plays_it(tmp_path: Path) -> None:
    """A whole hand played by i and p: the cursor shows the hinted card, p plays exactly the
    hinted move, and the key bar names p."""
    async with table(tmp_path, bots=2, seed=27, options=("hands=1",)) as kb:
        await kb.until(kb.my_turn)
        assert re.search(r" p +play hint", kb.screen()), kb.screen()
        played = await hint_then_play(kb)
    assert {"DrawStock", "Discard"} <= set(played), played
    assert {"Hit", "LayDown", "TakeDiscard"} & set(played), played


async def test_the_skip_prompt_numbers_its_choices_as_shown_and_enter_picks_the_hinted_player(
        tmp_path: Path) -> None:
    """A Skip with three players to choose from: x asks "Skip whom?" with the choices numbered
    1, 2, 3 as they read, the hinted player the current choice; Enter skips that player."""
    asked: list[str] = []

    async def skip(kb: Keyboard, advice: Advice) -> None:
        await kb.keys("x")
        prompt = kb.app.prompt
        assert prompt is not None
        status = "".join(fragment[1] for fragment in kb.app._status_text())  # the status line
        assert "Skip whom?" in status
        assert [c.key for c in prompt.choices] == [str(n) for n in range(1, len(prompt.choices) + 1)]
        numbered = re.findall(r"(\d) (Bot \d)", status)
        assert [n for n, _name in numbered] == [str(n) for n in range(1, len(numbered) + 1)], status
        assert isinstance(advice.move, Discard) and advice.move.target is not None
        hinted = kb.app.spoken[advice.move.target]
        assert prompt.current.label.startswith(hinted), (prompt.current.label, hinted)
        asked.append(status)
        await kb.keys("Enter")

    async with table(tmp_path, bots=3, seed=SKIP_SEED, options=("hands=1",)) as kb:
        await kb.until(kb.my_turn)
        await hint_then_play(kb, skip)
    assert asked


# ---------------------------------------------------------------- point 1: every meld in sight


def seat_blocks(pane: str, names: list[str]) -> dict[str, str]:
    """The table pane's lines under each seat's line (up to the next seat's, the piles, or
    the rule above the user's hand), by the seat's name."""
    blocks: dict[str, str] = {}
    current: str | None = None
    for line in pane.split("\n"):
        named = [n for n in names if line[:2] in ("▶ ", "> ", "  ") and line[2:].startswith(n + " ")]
        if named:
            current = max(named, key=len)
            blocks[current] = line
        elif current is not None and line.startswith("    "):
            blocks[current] += "\n" + line
        elif current is not None and line.strip():
            current = None
    return blocks


def check_every_meld_in_sight(kb: Keyboard) -> int:
    """Every meld on the table, by its letter and name, under its owner's line; or a line
    that counts the melds not shown and names the key that shows them, and that key's
    screen then holds each of them. Returns how many melds are on the table."""
    app = kb.app
    view = kb.local.view()
    pane = "".join(fragment[1] for fragment in app._left_text())
    blocks = seat_blocks(pane, list(app.names))
    absent = []
    for meld in view.melds:
        words = f"{chr(ord('A') + meld.id)} {label_text(meld.kind, meld.label, len(meld.cards))}"
        if words not in blocks.get(app.names[meld.owner], ""):
            absent.append(words)
    if absent:
        note = re.search(r"(\d+) melds? not shown here: m shows every meld", pane)
        assert note is not None and int(note.group(1)) == len(absent), (absent, pane)
    return len(view.melds)


@pytest.fixture
def language() -> Iterator[Callable[[str], None]]:
    """Speak a language for one test (English again afterwards)."""
    yield set_language
    set_language("en")


@pytest.mark.parametrize(("seed", "lang"), [(1, "en"), (5, "en"), (6, "en"), (5, "de"), (6, "es")])
async def test_every_meld_is_in_sight_at_80x24_with_six_seats(tmp_path: Path, seed: int, lang: str,
                                                              language: Callable[[str], None]) -> None:
    """Six seats at 80x24 (the issue's `p2p10 play --bots 5 -o hands=1`), the user's seat
    played by the hint: at every turn of the user's, every meld on the table can be read
    under its owner's line, at the least by its letter and name (in German and Spanish too,
    whose longer keys take more rows)."""
    language(lang)
    most = 0
    async with table(tmp_path, bots=5, seed=seed, options=("hands=1",), terminal=Terminal(80, 24)) as kb:
        while True:
            await kb.until(lambda: kb.my_turn() or kb.local.over or kb.app.screen != "table")
            if kb.local.over or kb.app.screen != "table":
                break
            most = max(most, check_every_meld_in_sight(kb))
            before = kb.entries()
            await kb.keys("p")
            await kb.until(lambda: kb.entries() > before)  # noqa: B023 - awaited at once
    assert most >= 8


async def test_a_table_too_small_for_its_melds_says_so_and_m_shows_them_all(tmp_path: Path) -> None:
    """At 80x16 six seats' melds cannot all be shown, even by name: a line says how many are
    left out and that m shows them; m opens a screen with every meld in full."""
    said = False
    async with table(tmp_path, bots=5, seed=5, options=("hands=1",), terminal=Terminal(80, 16)) as kb:
        while not said:
            await kb.until(lambda: kb.my_turn() or kb.local.over or kb.app.screen != "table")
            assert not kb.local.over and kb.app.screen == "table", "the melds never overflowed"
            check_every_meld_in_sight(kb)
            if "not shown here: m shows every meld" in kb.screen():
                said = True
                await kb.keys("m")
                screen = kb.screen()
                assert "Melds on the table" in screen
                for meld in kb.local.view().melds:
                    name = label_text(meld.kind, meld.label, len(meld.cards))
                    assert f"{chr(ord('A') + meld.id)} {name}" in screen, screen
                await kb.keys("Enter")
                assert kb.app.screen == "table"
            before = kb.entries()
            await kb.keys("p")
            await kb.until(lambda: kb.entries() > before)  # noqa: B023 - awaited at once


async def test_p_asks_before_it_discards_a_wild_the_next_player_may_take(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hint to discard a Wild is played by p only after the question x asks first."""
    async with table(tmp_path, bots=1, seed=1) as kb:  # a seed where the user draws and holds a Wild
        await kb.until(kb.my_turn)
        await kb.keys("d")
        await kb.until(lambda: kb.my_turn() and kb.local.view().stage == "play")
        view = kb.local.view()
        slot = next(s for s in view.hands[USER] if is_wild(view.known[s]))
        hinted = Advice(Discard(USER, slot, view.known[slot]), "", None)  # type: ignore[arg-type]
        monkeypatch.setattr(kb.app, "advice", lambda: hinted)  # the hint made to say so
        entries = kb.entries()
        await kb.keys("p")
        assert kb.app.prompt is not None and "Discard a Wild?" in kb.screen(), kb.screen()
        await kb.keys("n")
        assert kb.entries() == entries and "You kept the Wild." in kb.screen()
        await kb.keys("p", "y")
        await kb.until(lambda: kb.entries() > entries)
        assert "You discarded W" in kb.screen()
