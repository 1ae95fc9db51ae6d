"""The rule-scenario runner: reads a scenario file of ``specs/rules/`` and checks it.

A scenario is TOML data (format in ``specs/rules/README.md``): rule options, meld and solver
checks, and game steps with the state expected after each, or the error expected instead.
Seats are letters, A for seat 0. Every key is checked, so a typo fails loudly.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

from p2p10.cards import (
    COLOURS,
    DECK_SIZE,
    card_text,
    cards_of_face,
    parse_face,
    parse_hand,
)
from p2p10.engine import GameState
from p2p10.errors import IllegalMove
from p2p10.events import (
    Deal,
    Discard,
    DrawStock,
    EndHand,
    Event,
    Hit,
    LayDown,
    MeldSpec,
    Reshuffle,
    Reveal,
    SitOut,
    TakeDiscard,
)
from p2p10.game_fields import HAND_SIZE
from p2p10.melds import MeldError, check_meld
from p2p10.rules import PHASES, RuleSet
from p2p10.solver import solve

TOP_KEYS = {"title", "cites", "why", "options", "players", "start", "solve", "meld", "step"}
SOLVE_KEYS = {"phase", "hand", "makes", "down", "melds"}
MELD_KEYS = {"kind", "size", "cards", "label", "valid", "error", "natural"}
STEP_KEYS = {"do", "deal", "reshuffle", "error", "expect", "why"}
EXPECT_KEYS = {"turn", "stage", "awaiting", "hand", "hand_size", "top", "stock", "discard",
               "melds", "down", "skipped", "totals", "points", "made", "phase", "winner", "tie",
               "went_out", "hand_no", "dealer", "targets"}


class ScenarioError(AssertionError):
    """A scenario whose expectation failed, or whose data is malformed."""


def seat_of(letter: str) -> int:
    """'A' -> 0."""
    letter = letter.strip().upper()
    if len(letter) != 1 or not "A" <= letter <= "F":
        raise ScenarioError(f"{letter!r} is not a seat letter A..F")
    return ord(letter) - ord("A")


def letter(seat: int | None) -> str | None:
    """0 -> 'A'."""
    return None if seat is None else chr(ord("A") + seat)


def faces(text: str) -> list[str]:
    """Card texts normalised for comparison, sorted."""
    return sorted(card_text(cards_of_face(parse_face(t))[0]) for t in text.split())


def _check_keys(table: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = set(table) - allowed
    if unknown:
        raise ScenarioError(f"{where}: unknown key(s) {sorted(unknown)}")


def check_solve(item: dict[str, Any], rules: RuleSet) -> None:
    """A solver expectation."""
    _check_keys(item, SOLVE_KEYS, "[[solve]]")
    hand = parse_hand(item["hand"])
    plan = solve(hand, item["phase"], rules)
    where = f"phase {item['phase']} with {item['hand']}"
    if (plan is not None) != item["makes"]:
        raise ScenarioError(f"{where}: expected makes={item['makes']}, solver says {plan is not None}")
    if plan is not None:
        if "down" in item and plan.down != item["down"]:
            raise ScenarioError(f"{where}: expected {item['down']} down, solver puts {plan.down}")
        if "melds" in item:
            got = [f"{m.kind} {m.label}: {' '.join(card_text(c) for c in m.cards)}"
                   for m in plan.melds]
            want = item["melds"]
            if got != want:
                raise ScenarioError(f"{where}: expected melds {want}, got {got}")


def _label(kind: str, raw: Any) -> int | None:
    if raw is None:
        return None
    if kind == "color":
        return COLOURS.index(str(raw).upper())
    return int(raw)


def check_meld_item(item: dict[str, Any]) -> None:
    """A single-meld validity expectation."""
    _check_keys(item, MELD_KEYS, "[[meld]]")
    cards = parse_hand(item["cards"])
    kind = item["kind"]
    try:
        check_meld(kind, cards, item["size"], _label(kind, item.get("label")),
                   item.get("natural", True))
        valid, reason = True, ""
    except MeldError as err:
        valid, reason = False, str(err)
    if valid != item["valid"]:
        raise ScenarioError(f"{kind} {item['cards']}: expected valid={item['valid']}; {reason}")
    if "error" in item and item["error"].lower() not in reason.lower():
        raise ScenarioError(f"{kind} {item['cards']}: expected error with {item['error']!r}, got {reason!r}")


class Game:
    """A game under test: the state and the events that made it."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.events: list[Event] = []

    def apply(self, event: Event) -> None:
        self.state = self.state.apply(event)
        self.events.append(event)

    def slot_for(self, seat: int, text: str, taken: set[int]) -> tuple[int, int]:
        """A slot in ``seat``'s hand holding a card of face ``text``."""
        face = parse_face(text)
        for slot in self.state.hands[seat]:
            card = self.state.known.get(slot)
            if slot not in taken and card is not None and card in cards_of_face(face):
                taken.add(slot)
                return slot, card
        raise ScenarioError(f"{letter(seat)} holds no {text} (hand: {self.hand_text(seat)})")

    def hand_text(self, seat: int) -> str:
        return " ".join(card_text(self.state.known[s]) for s in self.state.hands[seat])

    def deal(self, spec: dict[str, str]) -> None:
        order = self.state.next_deal_order()
        names = [t for key in sorted(spec) for t in spec[key].split()]
        ids = iter(parse_hand(names))
        hands: dict[int, list[int]] = {}
        for key in sorted(spec):
            cards = [next(ids) for _ in spec[key].split()]
            if key in ("up", "stock"):
                hands[{"up": -1, "stock": -2}[key]] = cards
            else:
                hands[seat_of(key)] = cards
        k = len(order)
        deck: list[int | None] = [None] * DECK_SIZE
        for i, seat in enumerate(order):
            cards = hands.pop(seat, None)
            if cards is None or len(cards) != HAND_SIZE:
                raise ScenarioError(f"deal: seat {letter(seat)} needs exactly {HAND_SIZE} cards")
            for j, card in enumerate(cards):
                deck[j * k + i] = card
        if hands.keys() - {-1, -2}:
            raise ScenarioError(f"deal: seats {sorted(hands.keys() - {-1, -2})} are not dealt in")
        up = hands.get(-1)
        if not up or len(up) != 1:
            raise ScenarioError("deal: give exactly one 'up' card")
        deck[HAND_SIZE * k] = up[0]
        stock = hands.get(-2, [])
        for j, card in enumerate(stock):
            deck[HAND_SIZE * k + 1 + j] = card
        rest = iter(sorted(set(range(DECK_SIZE)) - {c for c in deck if c is not None}))
        full = [c if c is not None else next(rest) for c in deck]
        self.apply(Deal(full[HAND_SIZE * k]))
        self.apply(Reveal(tuple(enumerate(full))))

    def reshuffle(self, order: str) -> None:
        self.apply(Reshuffle())
        first, end, pool = self.state.pools[-1]
        wanted = [parse_face(t) for t in order.split()]
        remaining = sorted(pool)
        top_first: list[int] = []
        for face in wanted:
            card = next((c for c in remaining if c in cards_of_face(face)), None)
            if card is None:
                raise ScenarioError(f"reshuffle: no {order} among the reshuffled cards")
            remaining.remove(card)
            top_first.append(card)
        top_first += remaining
        # The new draw pile is drawn from its lowest slot up.
        slots = range(first, end)
        self.apply(Reveal(tuple(zip(slots, top_first, strict=True))))

    def do(self, command: str) -> None:
        words = command.replace("->", " -> ").split()
        if words == ["end"]:
            self.apply(EndHand())
            return
        seat = seat_of(words[0])
        verb, rest = words[1], words[2:]
        if words[1:] == ["sits", "out"]:  # before a deal: a player who left (RULES 9.1)
            self.apply(SitOut(seat))
        elif verb == "draw":
            self.apply(DrawStock(seat))
        elif verb == "take":
            self.apply(TakeDiscard(seat))
        elif verb == "discard":
            slot, card = self.slot_for(seat, rest[0], set())
            target = seat_of(rest[2]) if len(rest) >= 3 and rest[1] == "->" else None
            self.apply(Discard(seat, slot, card, target))
        elif verb == "hit":
            slot, card = self.slot_for(seat, rest[0], set())
            if len(rest) < 3 or rest[1] != "->":
                raise ScenarioError(f"hit needs 'CARD -> MELD [low|high]': {command}")
            end = rest[3] if len(rest) > 3 else None
            self.apply(Hit(seat, slot, card, int(rest[2]), end))  # type: ignore[arg-type]
        elif verb == "down":
            phase_text, _, melds_text = " ".join(rest).partition(":")
            phase = int(phase_text)
            taken: set[int] = set()
            specs = []
            reqs = PHASES.get(phase, ())
            for index, part in enumerate(melds_text.split("|")):
                tokens = part.split()
                label_tokens = [t for t in tokens if t.startswith("=")]
                kind = reqs[index].kind if index < len(reqs) else "set"
                label = _label(kind, label_tokens[0][1:]) if label_tokens else None
                pairs = [self.slot_for(seat, t, taken) for t in tokens if not t.startswith("=")]
                specs.append(MeldSpec(tuple(s for s, _ in pairs), tuple(c for _, c in pairs), label))
            self.apply(LayDown(seat, phase, tuple(specs)))
        else:
            raise ScenarioError(f"unknown step {command!r}")


def check_expect(game: Game, expect: dict[str, Any], where: str) -> None:
    """Compare the state with every expectation given."""
    _check_keys(expect, EXPECT_KEYS, f"{where} expect")
    s = game.state
    for key, want in expect.items():
        if key == "turn":
            value: Any = letter(s.turn)
        elif key == "stage":
            value = s.stage
        elif key == "awaiting":
            value = s.awaiting().kind
        elif key == "hand":
            value = {k: faces(game.hand_text(seat_of(k))) for k in want}
            want = {k: faces(v) for k, v in want.items()}
        elif key == "hand_size":
            value = {k: len(s.hands[seat_of(k)]) for k in want}
        elif key == "top":
            top = s.top_discard()
            value = card_text(top) if top is not None else ""
        elif key == "stock":
            value = len(s.stock)
        elif key == "discard":
            value = len(s.discard)
        elif key == "melds":
            value = [m.describe() for m in s.melds]
        elif key == "down":
            value = {k: s.down[seat_of(k)] or 0 for k in want}
        elif key == "skipped":
            value = {k: s.pending_skips[seat_of(k)] for k in want}
        elif key == "totals":
            value = list(s.totals)
        elif key == "points":
            row = s.sheet[-1].points if s.sheet else ()
            value = {k: row[seat_of(k)] for k in want}
        elif key == "made":
            value = {k: list(s.made[seat_of(k)]) for k in want}
        elif key == "phase":
            value = {k: s.phase_of(seat_of(k)) or 0 for k in want}
        elif key == "winner":
            value = letter(s.winner) or ""
        elif key == "tie":
            value = sorted(letter(t) or "" for t in s.tie or ())
        elif key == "went_out":
            value = letter(s.went_out) or ""
        elif key == "hand_no":
            value = s.hand_no
        elif key == "dealer":
            value = letter(s.dealer)
        elif key == "targets":
            value = {k: sorted(letter(t) or "" for t in s.skip_targets(seat_of(k))) for k in want}
            want = {k: sorted(v) for k, v in want.items()}
        if value != want:
            raise ScenarioError(f"{where}: expected {key} = {want!r}, got {value!r}")


def run_scenario(path: Path) -> None:
    """Check one scenario file; raises :class:`ScenarioError` on any mismatch."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    _check_keys(data, TOP_KEYS, path.name)
    if "title" not in data:
        raise ScenarioError(f"{path.name}: a scenario needs a title")
    rules = RuleSet.parse(data.get("options", []))
    for item in data.get("solve", []):
        check_solve(item, rules)
    for item in data.get("meld", []):
        check_meld_item(item)
    steps = data.get("step", [])
    if not steps:
        if not data.get("solve") and not data.get("meld"):
            raise ScenarioError(f"{path.name}: nothing to check")
        return
    start = data.get("start", {})
    game = Game(GameState.start(data.get("players", 2), rules, made=start.get("made"),
                                totals=start.get("totals"),
                                hands_played=start.get("hands_played", 0)))
    for number, step in enumerate(steps, 1):
        _check_keys(step, STEP_KEYS, f"step {number}")
        action = "deal" if "deal" in step else "reshuffle" if "reshuffle" in step else step.get("do")
        where = f"{path.name} step {number} ({action})"
        before = game.state
        try:
            if "deal" in step:
                game.deal(step["deal"])
            elif "reshuffle" in step:
                game.reshuffle(step["reshuffle"])
            else:
                game.do(step["do"])
        except IllegalMove as err:
            if "error" not in step:
                raise ScenarioError(f"{where}: refused: {err}") from None
            if step["error"].lower() not in str(err).lower():
                raise ScenarioError(f"{where}: expected error with {step['error']!r}, got {err}") from None
            if game.state is not before:
                raise ScenarioError(f"{where}: a refused move changed the state") from None
        else:
            if "error" in step:
                raise ScenarioError(f"{where}: expected refusal ({step['error']!r}) but it was allowed")
        check_expect(game, step.get("expect", {}), where)
    _check_conservation(game)


def _check_conservation(game: Game) -> None:
    """Every one of the 108 cards is in exactly one place at the end of each step."""
    s = game.state
    if s.stage in ("deal", "over") and s.sheet:
        return
    slots = [x for seat in s.seats_in_hand for x in s.hands[seat]]
    slots += list(s.stock) + list(s.discard) + [x for m in s.melds for x in m.slots]
    cards = Counter(s.known[x] for x in slots)
    if len(slots) != DECK_SIZE or len(cards) != DECK_SIZE:
        raise ScenarioError(f"cards not conserved: {len(slots)} slots, {len(cards)} distinct cards")
