"""A game's state as the rules engine keeps it: the table's limits, what the game awaits, the
records it keeps (the score sheet's rows, the public moves), its fields and what they say read
without changing them. The events that change it are p2p10.engine, the moves of a turn
p2p10.game_moves, a hand's end p2p10.game_end."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Self

from p2p10.errors import IllegalMove
from p2p10.i18n import _
from p2p10.melds import Meld
from p2p10.rules import RuleSet

HAND_SIZE = 10
MIN_PLAYERS = 2
MAX_PLAYERS = 6
Stage = Literal["deal", "draw", "play", "reveal", "over"]
Action = Literal["draw", "take", "lay", "hit", "discard"]


@dataclass(frozen=True, slots=True)
class Awaiting:
    """Who may write the next event.

    ``kind`` is ``"move"`` (``seat`` plays), ``"deal"``, ``"reshuffle"``, ``"reveal"``
    (the hand is over; the cards left in hands must be revealed), ``"end_hand"`` or ``"over"``.
    """

    kind: Literal["move", "deal", "reshuffle", "reveal", "end_hand", "over"]
    seat: int | None = None


# awaiting()'s answers, made once: it is asked before every event and every decision, and an
# Awaiting is immutable, so the same value serves every state.
_OVER = Awaiting("over")
_DEAL = Awaiting("deal")
_REVEAL = Awaiting("reveal")
_END_HAND = Awaiting("end_hand")
_RESHUFFLE = Awaiting("reshuffle")
_MOVES = tuple(Awaiting("move", seat) for seat in range(MAX_PLAYERS))


@dataclass(frozen=True, slots=True)
class HandResult:
    """One row of the score sheet.

    ``phase[s]`` is the phase seat s played (None if not dealt in), ``made[s]`` whether it was
    laid down, ``points[s]`` the penalty points scored. A tie replay's row has ``tie=True`` and
    its points do not count towards the totals.
    """

    number: int
    tie: bool
    phase: tuple[int | None, ...]
    made: tuple[bool, ...]
    points: tuple[int | None, ...]
    went_out: int


@dataclass(frozen=True, slots=True)
class PublicMove:
    """One move of this hand as every player saw it: ``action`` is ``draw`` (from the draw
    pile, card unseen), ``take`` (the top discard), ``lay`` (``phase`` laid down), ``hit``
    or ``discard`` (with the Skip's ``target``)."""

    seat: int
    action: Action
    card: int | None = None
    target: int | None = None
    phase: int | None = None


def no_seat_text(seat: int) -> str:
    """Why a seat number names no seat."""
    # TRANSLATORS: {seat} is a seat's index as the program counts them, from 0.
    return _("there is no seat {seat}").format(seat=seat)


def names_mismatch_text(given: int, players: int) -> str:
    """Why a list of names does not fit the seats."""
    return _("{given} names given for {n} players").format(given=given, n=players)


def or_text(items: Sequence[int]) -> str:
    """Phase numbers joined with "or" in the current language: '2 or 5 or 7'."""
    text = str(items[0])
    for item in items[1:]:
        # TRANSLATORS: two phase numbers the player may lay down; a longer list repeats it:
        # "2 or 5 or 7".
        text = _("{first} or {second}").format(first=text, second=item)
    return text


class GameFields:
    """A game's fields and what they say (the state is :class:`~p2p10.engine.GameState`). Treat it
    as immutable."""

    __slots__ = (
        "dead",
        "dealer",
        "discard",
        "down",
        "hand_no",
        "hands",
        "history",
        "known",
        "last_phase",
        "made",
        "melds",
        "names",
        "next_slot",
        "pending_skips",
        "pools",
        "regular_hands",
        "rules",
        "seats_in_hand",
        "sheet",
        "shown",
        "sitting_out",
        "skipped_since_turn",
        "stage",
        "stock",
        "tie",
        "totals",
        "turn",
        "went_out",
        "where",
        "winner",
    )

    rules: RuleSet
    names: tuple[str, ...]
    hand_no: int
    regular_hands: int
    stage: Stage
    dealer: int
    turn: int
    seats_in_hand: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]
    discard: tuple[int, ...]
    melds: tuple[Meld, ...]
    known: Mapping[int, int]
    where: Mapping[int, int]
    pools: tuple[tuple[int, int, frozenset[int]], ...]
    dead: frozenset[int]
    down: tuple[int | None, ...]
    pending_skips: tuple[int, ...]
    skipped_since_turn: tuple[bool, ...]
    went_out: int | None
    next_slot: int
    totals: tuple[int, ...]
    made: tuple[tuple[int, ...], ...]
    last_phase: tuple[int | None, ...]
    sheet: tuple[HandResult, ...]
    tie: frozenset[int] | None
    winner: int | None
    shown: frozenset[int]
    sitting_out: frozenset[int]
    history: tuple[PublicMove, ...]

    # Steps of GameState (p2p10.engine) that the moves built on this class call: typed here so
    # that every part is checked against them.
    _check_may: Callable[[Action, int], None]
    _take_card: Callable[[int, int, int], None]
    _pass_turn: Callable[[], None]

    @property
    def players(self) -> int:
        """Number of seats at the table."""
        return len(self.names)

    def awaiting(self) -> Awaiting:
        """Who may write the next event (see :class:`Awaiting`)."""
        stage = self.stage
        if stage == "over":
            return _OVER
        if stage == "deal":
            return _DEAL
        if stage == "reveal":
            missing = self.unrevealed_in_hands()
            return _REVEAL if missing else _END_HAND
        if stage == "draw" and not self.stock and len(self.discard) >= 2:
            return _RESHUFFLE
        turn = self.turn
        return _MOVES[turn] if 0 <= turn < MAX_PLAYERS else Awaiting("move", turn)

    def next_deal_seats(self) -> tuple[int, ...]:
        """The seats the next ``Deal`` deals in: everybody, or the players of a tie replay,
        less any seat sitting the hand out."""
        seats = self.tie if self.tie is not None else range(self.players)
        return tuple(sorted(s for s in seats if s not in self.sitting_out))

    def with_names(self, names: Sequence[str]) -> Self:
        """The same state with the seats renamed (a seat now played by a bot says whose)."""
        if len(names) != self.players:
            raise IllegalMove(names_mismatch_text(len(names), self.players))
        new = self._copy()
        new.names = tuple(names)
        return new

    def next_deal_order(self) -> tuple[int, ...]:
        """The seats of the next hand in dealing order: from the seat left of the next dealer
        (who also plays first), clockwise. Slot i of the deal goes to ``order[i % len]``."""
        n = self.players
        seats = self.next_deal_seats()
        dealer = (self.hand_no + 1) % n
        start = next(s for s in ((dealer + k) % n for k in range(1, n + 1)) if s in seats)
        return seats[seats.index(start):] + seats[:seats.index(start)]

    def unrevealed_in_hands(self) -> tuple[int, ...]:
        """Slots held in hands whose card this viewer does not know."""
        return tuple(s for seat in self.seats_in_hand for s in self.hands[seat]
                     if s not in self.known)

    def card_at(self, slot: int) -> int | None:
        """The card at ``slot`` if this viewer knows it."""
        return self.known.get(slot)

    def hand_cards(self, seat: int) -> tuple[int, ...]:
        """The known cards of ``seat``'s hand (all of them for a full-information viewer)."""
        known = self.known
        return tuple([known[s] for s in self.hands[seat] if s in known])

    def top_discard(self) -> int | None:
        """The card on top of the discard pile, if any."""
        return self.known[self.discard[-1]] if self.discard else None

    def phase_of(self, seat: int) -> int | None:
        """The phase ``seat`` plays this hand (under ``order=any``: the lowest not yet made);
        None when the seat is not dealt into this hand."""
        allowed = self.allowed_phases(seat)
        return allowed[0] if allowed else None

    def allowed_phases(self, seat: int) -> tuple[int, ...]:
        """Every phase ``seat`` may lay down this hand."""
        if self.stage == "over":
            return ()
        if self.tie is not None:
            phase = self.last_phase[seat]
            return (phase,) if seat in self.tie and phase is not None else ()
        rules = self.rules
        if rules.hands:
            return (rules.phase_list[self.regular_hands % len(rules.phase_list)],)
        if rules.any_order:
            return tuple(p for p in rules.phase_list if p not in self.made[seat])
        count = len(self.made[seat])
        return (rules.phase_list[count],) if count < len(rules.phase_list) else ()

    def skip_targets(self, seat: int) -> tuple[int, ...]:
        """The seats a Skip discarded by ``seat`` may hit now (empty: it has no effect)."""
        rules = self.rules
        if rules.skip_next:
            candidates: Iterable[int] = (self._seat_after(seat),)
        else:
            candidates = self.seats_in_hand
        # Without skip_stacking a player hit by a Skip may not be hit again until they have
        # played a turn of their own: not while the Skip waits, nor right after it took effect.
        return tuple(t for t in candidates
                     if t != seat and (rules.skip_stacking or not self.skipped_since_turn[t]))

    def seen_by(self, seat: int) -> Self:
        """The game as ``seat`` may see it: its own hand and every card shown to the table
        (the discard pile, the melds, cards taken from the discard pile); every other card
        this state knows is dropped, so whoever is handed the result cannot look at them."""
        visible = self.shown | frozenset(self.hands[seat])
        if visible.issuperset(self.known):
            return self
        view = self._copy()
        known = {s: c for s, c in self.known.items() if s in visible}
        view.known = known
        view.where = {c: s for s, c in known.items()}
        return view

    def is_over(self) -> bool:
        """True once the game has a winner."""
        return self.stage == "over"

    def _copy(self) -> Self:
        # Every event and every seen_by() copies the state: one plain assignment per slot is
        # several times faster than a loop of getattr and object.__setattr__ over __slots__.
        # tests/test_engine.py checks that every slot is copied.
        new = object.__new__(type(self))
        new.dead = self.dead
        new.dealer = self.dealer
        new.discard = self.discard
        new.down = self.down
        new.hand_no = self.hand_no
        new.hands = self.hands
        new.history = self.history
        new.known = self.known
        new.last_phase = self.last_phase
        new.made = self.made
        new.melds = self.melds
        new.names = self.names
        new.next_slot = self.next_slot
        new.pending_skips = self.pending_skips
        new.pools = self.pools
        new.regular_hands = self.regular_hands
        new.rules = self.rules
        new.seats_in_hand = self.seats_in_hand
        new.sheet = self.sheet
        new.shown = self.shown
        new.sitting_out = self.sitting_out
        new.skipped_since_turn = self.skipped_since_turn
        new.stage = self.stage
        new.stock = self.stock
        new.tie = self.tie
        new.totals = self.totals
        new.turn = self.turn
        new.went_out = self.went_out
        new.where = self.where
        new.winner = self.winner
        return new

    def _name(self, seat: int) -> str:
        return self.names[seat]

    def _seat_after(self, seat: int) -> int:
        order = self.seats_in_hand
        if seat in order:
            return order[(order.index(seat) + 1) % len(order)]
        n = self.players
        for step in range(1, n + 1):
            candidate = (seat + step) % n
            if candidate in order:
                return candidate
        raise AssertionError("no seat in hand")

    def _set(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)

    def _replace_at(self, name: str, index: int, value: object) -> None:
        items = list(getattr(self, name))
        items[index] = value
        self._set(name, tuple(items))


# Every field of a game's state, in the order of its slots.
GAME_FIELDS: tuple[str, ...] = GameFields.__slots__
