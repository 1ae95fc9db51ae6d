"""The rules engine: game state as a pure fold of events.

``GameState.apply(event)`` validates the event against the state and returns a new state;
the old one is never changed. An event the rules forbid raises :class:`IllegalMove` with a
message a player can read, and the state stays as it was. ``fold`` replays a list of events.

The engine knows deck positions (slots) and the cards that have been opened to its viewer,
never keys. A full-information simulation reveals every slot; a peer reveals only its own
cards and what is played; a spectator only what is played. All of them fold the same events
through the same code.

Stages of a hand (``GameState.stage``)::

    deal ──Deal──▶ draw ──DrawStock/TakeDiscard──▶ play ──Discard──▶ draw (next seat)
                    ▲ (draw pile empty: Reshuffle)   │ LayDown, Hit (stay in play)
                                                     ▼ hand emptied (going out)
                                                     reveal ──EndHand──▶ deal | over
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from p2p10.cards import DECK_SIZE, card_text, cards_text, is_natural, is_skip, points
from p2p10.errors import IllegalMove
from p2p10.events import (
    Deal,
    Discard,
    DrawStock,
    EndHand,
    Event,
    Hit,
    LayDown,
    Reshuffle,
    Reveal,
    SitOut,
    TakeDiscard,
)
from p2p10.i18n import _, ngettext
from p2p10.melds import Meld, MeldError, check_meld, hit
from p2p10.rules import DEFAULT, PHASES, RuleSet, describe_phase

HAND_SIZE = 10
MIN_PLAYERS = 2
MAX_PLAYERS = 6

Stage = Literal["deal", "draw", "play", "reveal", "over"]
Action = Literal["draw", "take", "lay", "hit", "discard"]
"""A kind of move: from the draw pile, from the discard pile, a lay-down, a hit, a discard."""


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


class GameState:
    """The state of a game at one point of its event log. Treat it as immutable."""

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

    def __init__(self, players: int, rules: RuleSet = DEFAULT,
                 names: Sequence[str] | None = None) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            # TRANSLATORS: "Phase 10" is the game's name here (kept as it is in every language).
            raise IllegalMove(_("Phase 10 is for {low} to {high} players, not {n}").format(
                low=MIN_PLAYERS, high=MAX_PLAYERS, n=players))
        if names is not None and len(names) != players:
            raise IllegalMove(_names_mismatch(len(names), players))
        self.rules = rules
        self.names = tuple(names) if names else tuple(f"Seat {i + 1}" for i in range(players))
        self.hand_no = -1
        self.regular_hands = 0
        self.stage = "deal"
        self.dealer = -1
        self.turn = -1
        self.seats_in_hand = ()
        self.hands = ((),) * players
        self.stock = ()
        self.discard = ()
        self.melds = ()
        self.known = {}
        self.where = {}
        self.pools = ()
        self.dead = frozenset()
        self.down = (None,) * players
        self.pending_skips = (0,) * players
        self.skipped_since_turn = (False,) * players
        self.went_out = None
        self.next_slot = 0
        self.totals = (0,) * players
        self.made = ((),) * players
        self.last_phase = (None,) * players
        self.sheet = ()
        self.tie = None
        self.winner = None
        self.shown = frozenset()
        self.sitting_out = frozenset()
        self.history = ()

    @classmethod
    def start(cls, players: int, rules: RuleSet = DEFAULT, names: Sequence[str] | None = None,
              made: Sequence[Sequence[int]] | None = None, totals: Sequence[int] | None = None,
              hands_played: int = 0) -> GameState:
        """A game that begins from a score sheet: the phases each seat has made, the totals
        and how many hands were played (which sets the next dealer). For continuing a game
        played on paper, and for rule scenarios that begin near the end."""
        state = cls(players, rules, names)
        if made is not None:
            if len(made) != players or any(p not in rules.phase_list for m in made for p in m):
                # TRANSLATORS: {made} is a list of lists of phase numbers, one list per player.
                raise IllegalMove(_("made phases {made} do not fit {n} players and the rules").format(
                    made=made, n=players))
            state.made = tuple(tuple(m) for m in made)
            state.last_phase = tuple(m[-1] if m else None for m in made)
        if totals is not None:
            if len(totals) != players:
                raise IllegalMove(_("{given} totals given for {n} players").format(
                    given=len(totals), n=players))
            state.totals = tuple(totals)
        state.regular_hands = hands_played
        state.hand_no = hands_played - 1
        return state

    # ----------------------------------------------------------------- reading the state

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

    def with_names(self, names: Sequence[str]) -> GameState:
        """The same state with the seats renamed (a seat now played by a bot says whose)."""
        if len(names) != self.players:
            raise IllegalMove(_names_mismatch(len(names), self.players))
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

    def seen_by(self, seat: int) -> GameState:
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

    # ------------------------------------------------------------------- applying events

    def apply(self, event: Event) -> GameState:
        """Validate ``event`` and return the state after it. Raises :class:`IllegalMove`."""
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise IllegalMove(_("{event!r} is not a game event").format(event=event))
        new = self._copy()
        handler(new, event)
        return new

    def _copy(self) -> GameState:
        # Every event and every seen_by() copies the state: one plain assignment per slot is
        # several times faster than a loop of getattr and object.__setattr__ over __slots__.
        # tests/test_engine.py checks that every slot is copied.
        new = object.__new__(GameState)
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

    # Each _on_* mutates a fresh copy made by apply(); the original is never touched.

    def why_not(self, action: Action, seat: int) -> str | None:
        """Why ``seat`` may not make a move of kind ``action`` now, whatever its cards, or None
        when it may: the reason the engine gives when it refuses such a move (the same code
        checks both), so a player can be told without a move being built to try.

        A ``lay`` that passes may still be refused for its melds, a ``hit`` for its meld or card."""
        if not 0 <= seat < self.players:
            return _no_seat(seat)
        why = self._why_not_turn(seat, "draw" if action in ("draw", "take") else "play")
        if why is not None:
            return why
        if action == "draw" and not self.stock:
            return _("the draw pile is empty: take the discard")
        if action == "take":
            top = self.top_discard()
            if top is None:
                return _("the discard pile is empty: draw from the draw pile")
            if not self.takeable(top):
                return _("a Skip can never be taken from the discard pile")
        if action == "lay":
            if self.down[seat] is not None:
                return _("you have already laid down your phase this hand")
            if not self.allowed_phases(seat):
                return _("you have no phase left to lay down")
        if action == "hit" and self.down[seat] is None:
            return _("lay down your own phase before you hit")
        return None

    @staticmethod
    def takeable(card: int) -> bool:
        """Whether ``card`` on top of the discard pile may be taken (a Skip never may)."""
        return not is_skip(card)

    def _why_not_turn(self, seat: int, stage: Stage) -> str | None:
        if self.stage == "over":
            return _("the game is over")
        if self.stage in ("deal", "reveal"):
            return _("the hand is not being played: no moves now")
        if self.awaiting().kind == "reshuffle":
            return _("the draw pile is empty and must be reshuffled first")
        if seat != self.turn:
            # TRANSLATORS: {turn} and {seat} are players' names: "it is Ann's turn, not Bob's".
            return _("it is {turn}'s turn, not {seat}'s").format(turn=self._name(self.turn),
                                                                 seat=self._name(seat))
        if self.stage != stage:
            if stage == "draw":
                return _("you have already drawn this turn")
            return _("draw a card first: from the draw pile or the discard pile")
        return None

    def _check_may(self, action: Action, seat: int) -> None:
        """Raise :class:`IllegalMove` with :meth:`why_not`'s reason, if there is one."""
        why = self.why_not(action, seat)
        if why is not None:
            raise IllegalMove(why, seat if 0 <= seat < self.players else None)

    def _take_card(self, seat: int, slot: int, card: int) -> None:
        """Check that ``seat`` holds ``slot`` with ``card``; open it; take it from the hand."""
        if slot not in self.hands[seat]:
            # TRANSLATORS: a slot is a card's position in the shuffled deck (a number).
            raise IllegalMove(_("{name} does not hold slot {slot}").format(
                name=self._name(seat), slot=slot), seat)
        self._open(slot, card, seat)
        self._replace_at("hands", seat, tuple(s for s in self.hands[seat] if s != slot))

    def _open(self, slot: int, card: int, seat: int | None = None) -> None:
        if self._may_open(slot, card, seat):
            known_map = dict(self.known)
            known_map[slot] = card
            where = dict(self.where)
            where[card] = slot
            self.known = known_map
            self.where = where

    def _may_open(self, slot: int, card: int, seat: int | None) -> bool:
        """Whether ``card`` may be opened at ``slot``: True if it is new to this viewer, False
        if the viewer already knew it there; raises :class:`IllegalMove` when it cannot be."""
        if not 0 <= card < DECK_SIZE:
            # TRANSLATORS: {card} is a card's number in the deck (0 to 107), not its notation.
            raise IllegalMove(_("card {card} does not exist").format(card=card), seat)
        if not 0 <= slot < self.next_slot or slot in self.dead:
            raise IllegalMove(_("slot {slot} is not in play").format(slot=slot), seat)
        known = self.known.get(slot)
        if known is not None:
            if known != card:
                raise IllegalMove(_("slot {slot} holds {known}, not {card}").format(
                    slot=slot, known=card_text(known), card=card_text(card)), seat)
            return False
        clash = self.clash(slot, card)
        if clash is not None:
            raise IllegalMove(clash, seat)
        return True

    def clash(self, slot: int, card: int) -> str | None:
        """Why ``card`` cannot be at ``slot`` given the cards this viewer knows (it is at another
        slot, or it was not among the cards reshuffled into that slot); None if it can be."""
        other = self.where.get(card)
        if other is not None and other != slot:
            return _("{card} is already at slot {other}, not at slot {slot}").format(
                card=card_text(card), other=other, slot=slot)
        for first, end, pool in self.pools:
            if first <= slot < end and card not in pool:
                return _("{card} was not among the cards reshuffled into slot {slot}").format(
                    card=card_text(card), slot=slot)
        return None

    def _on_deal(self, event: Deal) -> None:
        if self.stage == "over":
            raise IllegalMove(_("the game is over: no more hands are dealt"))
        if self.stage != "deal":
            raise IllegalMove(_("a hand is already under way"))
        n = self.players
        hand_no = self.hand_no + 1
        seats = self.next_deal_seats()
        dealer = hand_no % n
        order = self.next_deal_order()
        start = order[0]
        k = len(seats)
        hands: list[tuple[int, ...]] = [() for _seat in range(n)]
        for i, seat in enumerate(order):
            hands[seat] = tuple(range(i, HAND_SIZE * k, k))
        first_slot = HAND_SIZE * k
        self.hand_no = hand_no
        self.dealer = dealer
        self.seats_in_hand = seats
        self.hands = tuple(hands)
        self.stock = tuple(range(DECK_SIZE - 1, first_slot, -1))
        self.discard = (first_slot,)
        self.melds = ()
        self.known = {}
        self.where = {}
        self.pools = ()
        self.dead = frozenset()
        self.next_slot = DECK_SIZE
        self.down = (None,) * n
        self.pending_skips = (0,) * n
        self.skipped_since_turn = (False,) * n
        self.went_out = None
        self.shown = frozenset((first_slot,))
        self.history = ()
        self._open(first_slot, event.first_up)
        if is_skip(event.first_up):
            # A Skip turned up first costs the first player their first turn (seed 003).
            self._replace_at("pending_skips", start, 1)
            self._replace_at("skipped_since_turn", start, True)
        self.turn = dealer
        self._pass_turn()

    def _on_sit_out(self, event: SitOut) -> None:
        if self.stage != "deal":
            raise IllegalMove(_("a seat sits out only before a deal"))
        if not 0 <= event.seat < self.players:
            raise IllegalMove(_no_seat(event.seat))
        out = self.sitting_out | {event.seat}
        seats = self.tie if self.tie is not None else range(self.players)
        if len([s for s in seats if s not in out]) < MIN_PLAYERS:
            raise IllegalMove(_("without {name} fewer than {n} would play").format(
                name=self._name(event.seat), n=MIN_PLAYERS))
        self.sitting_out = out

    def _pass_turn(self) -> None:
        """Give the turn to the next seat, consuming the Skips that stand in the way."""
        seat = self._seat_after(self.turn)
        pending = list(self.pending_skips)
        while pending[seat] > 0:
            pending[seat] -= 1
            seat = self._seat_after(seat)
        self.pending_skips = tuple(pending)
        self._replace_at("skipped_since_turn", seat, False)
        self.turn = seat
        self.stage = "draw"
        # A card can always be drawn: at the start of a turn the hands and melds hold exactly
        # 10 cards per player dealt in, so draw and discard piles hold at least 108 - 60 = 48,
        # and an empty draw pile always has a discard pile to be reshuffled from.

    def _on_reveal(self, event: Reveal) -> None:
        if self.stage in ("deal", "over"):
            raise IllegalMove(_("no hand is under way: nothing to reveal"))
        # One copy of the maps for the whole event, filled in place, rather than _open's two
        # copies per card: a deal reveals all 108 slots at once.
        known = dict(self.known)
        where = dict(self.where)
        self.known = known
        self.where = where
        for slot, card in event.cards:
            if self._may_open(slot, card, None):
                known[slot] = card
                where[card] = slot

    def _on_reshuffle(self, event: Reshuffle) -> None:
        if self.awaiting().kind != "reshuffle":
            raise IllegalMove(_("the draw pile is not empty and nobody needs to draw: no reshuffle now"))
        old = self.discard[:-1]
        cards = frozenset(self.known[s] for s in old)
        first = self.next_slot
        end = first + len(old)
        known = {s: c for s, c in self.known.items() if s not in old}
        where = {c: s for s, c in known.items()}
        self.known = known
        self.where = where
        self.dead = self.dead | frozenset(old)
        self.pools = self.pools + ((first, end, cards),)
        self.discard = self.discard[-1:]
        self.stock = tuple(range(end - 1, first - 1, -1))
        self.next_slot = end

    def _on_draw_stock(self, event: DrawStock) -> None:
        self._check_may("draw", event.seat)
        slot = self.stock[-1]
        self.stock = self.stock[:-1]
        self._replace_at("hands", event.seat, self.hands[event.seat] + (slot,))
        self.stage = "play"
        self._record(PublicMove(event.seat, "draw"))

    def _on_take_discard(self, event: TakeDiscard) -> None:
        self._check_may("take", event.seat)
        top = self.top_discard()
        assert top is not None  # why_not("take") says so when there is none
        slot = self.discard[-1]
        self.discard = self.discard[:-1]
        self._replace_at("hands", event.seat, self.hands[event.seat] + (slot,))
        self.stage = "play"
        self._record(PublicMove(event.seat, "take", top))

    def _on_lay_down(self, event: LayDown) -> None:
        seat = event.seat
        self._check_may("lay", seat)
        allowed = self.allowed_phases(seat)
        if event.phase not in allowed:
            # TRANSLATORS: {phases} is one phase number, or several under order=any ("2 or 5");
            # {tried} is the phase the player tried to lay down.
            raise IllegalMove(ngettext("you are on phase {phases}, not phase {tried}",
                                       "you are on phase {phases}, not phase {tried}",
                                       len(allowed)).format(phases=_or_text(allowed),
                                                            tried=event.phase), seat)
        reqs = PHASES[event.phase]
        name = describe_phase(event.phase)
        if len(event.melds) != len(reqs):
            # TRANSLATORS: {name} is what the phase asks for ("2 sets of 3"); {n} the melds it
            # is made of, {given} the melds the player laid down.
            raise IllegalMove(ngettext("Phase {phase} ({name}) is {n} meld, not {given}",
                                       "Phase {phase} ({name}) is {n} melds, not {given}",
                                       len(reqs)).format(phase=event.phase, name=name, n=len(reqs),
                                                         given=len(event.melds)), seat)
        all_slots = [s for spec in event.melds for s in spec.slots]
        if len(set(all_slots)) != len(all_slots):
            raise IllegalMove(_("a card cannot go into two melds"), seat)
        per_phase = self.rules.natural_per_phase
        new_melds: list[Meld] = []
        next_id = len(self.melds)
        for req, spec in zip(reqs, event.melds, strict=True):
            if len(spec.slots) != len(spec.cards):
                raise IllegalMove(_("each card of a meld needs its slot"), seat)
            for slot, card in zip(spec.slots, spec.cards, strict=True):
                self._take_card(seat, slot, card)
            try:
                label = check_meld(req.kind, spec.cards, req.size, spec.label, not per_phase)
            except MeldError as err:
                # TRANSLATORS: {meld} is a meld the phase asks for ("set of 3", "run of 4",
                # "7 cards of one colour"); {reason} is a whole sentence saying what is wrong
                # with the cards laid down for it ("R7 B8 W is not a set").
                raise IllegalMove(_("Phase {phase} needs a {meld}; {reason}").format(
                    phase=event.phase, meld=req.describe(), reason=err), seat) from None
            new_melds.append(Meld(next_id, seat, req.kind, label, spec.slots, spec.cards))
            next_id += 1
        if per_phase and not any(is_natural(c) for spec in event.melds for c in spec.cards):
            # TRANSLATORS: {name} is what the phase asks for ("2 sets of 3"); the rule
            # natural=phase asks for one numbered card in the whole phase.
            raise IllegalMove(_("Phase {phase} ({name}) needs at least one numbered card").format(
                phase=event.phase, name=name), seat)
        self.melds = self.melds + tuple(new_melds)
        self._replace_at("down", seat, event.phase)
        self.shown = self.shown | frozenset(all_slots)
        self._record(PublicMove(seat, "lay", phase=event.phase))
        self._check_out(seat)

    def _on_hit(self, event: Hit) -> None:
        seat = event.seat
        self._check_may("hit", seat)
        if not 0 <= event.meld < len(self.melds):
            raise IllegalMove(_("there is no meld {meld} on the table").format(meld=event.meld), seat)
        meld = self.melds[event.meld]
        if self.rules.hit_own and meld.owner != seat:
            # TRANSLATORS: keep "hit=own" (a rule option) as it is. {meld} is a meld on the
            # table with its cards ("set of 7s: R7 B7 W"); {owner} the name of the player whose
            # meld it is.
            raise IllegalMove(_("with hit=own you may hit only your own melds, and the {meld} is "
                                "{owner}'s").format(meld=meld.describe(),
                                                    owner=self._name(meld.owner)), seat)
        self._take_card(seat, event.slot, event.card)
        try:
            grown = hit(meld, event.slot, event.card, event.end)
        except MeldError as err:
            raise IllegalMove(str(err), seat) from None
        self._replace_at("melds", event.meld, grown)
        self.shown = self.shown | {event.slot}
        self._record(PublicMove(seat, "hit", event.card))
        self._check_out(seat)

    def _on_discard(self, event: Discard) -> None:
        seat = event.seat
        self._check_may("discard", seat)
        targets = self.skip_targets(seat)
        self._take_card(seat, event.slot, event.card)
        self.discard = self.discard + (event.slot,)
        going_out = not self.hands[seat]
        if is_skip(event.card) and not going_out:
            if event.target is None:
                if targets:
                    names = ", ".join(self._name(t) for t in targets)
                    # TRANSLATORS: {names} lists the players the Skip may go to, "Ann, Bob".
                    raise IllegalMove(_("say whom the Skip is for: {names}").format(names=names), seat)
            elif event.target not in targets:
                raise IllegalMove(self._why_not_target(seat, event.target), seat)
            else:
                self._replace_at("pending_skips", event.target,
                                 self.pending_skips[event.target] + 1)
                self._replace_at("skipped_since_turn", event.target, True)
        elif event.target is not None and not is_skip(event.card):
            raise IllegalMove(_("only a Skip has a target, and {card} is not one").format(
                card=card_text(event.card)), seat)
        self.shown = self.shown | {event.slot}
        skipped = event.target if is_skip(event.card) and not going_out else None
        self._record(PublicMove(seat, "discard", event.card, skipped))
        if going_out:
            self._check_out(seat)
        else:
            self._pass_turn()

    def _why_not_target(self, seat: int, target: int) -> str:
        if target == seat:
            return _("you cannot skip yourself")
        if not 0 <= target < self.players:
            return _no_seat(target)
        if target not in self.seats_in_hand:
            return _("{name} is not playing this hand").format(name=self._name(target))
        if self.rules.skip_next and target != self._seat_after(seat):
            # TRANSLATORS: keep "skip=next" (a rule option) as it is; {name} is a player's name.
            return _("with skip=next the Skip goes to {name}").format(
                name=self._name(self._seat_after(seat)))
        return _("{name} was skipped and may not be skipped again before playing a turn of "
                 "their own").format(name=self._name(target))

    def _record(self, move: PublicMove) -> None:
        self.history = (*self.history, move)

    def _check_out(self, seat: int) -> None:
        if not self.hands[seat]:
            self.went_out = seat
            self.stage = "reveal"

    def _on_end_hand(self, event: EndHand) -> None:
        if self.stage != "reveal":
            raise IllegalMove(_("the hand is not over"))
        missing = self.unrevealed_in_hands()
        if missing:
            # TRANSLATORS: {slots} lists positions in the deck ("3, 17, 40") whose cards nobody
            # has shown yet.
            raise IllegalMove(ngettext("slots {slots} must be revealed before scoring",
                                       "slots {slots} must be revealed before scoring",
                                       len(missing)).format(slots=", ".join(map(str, missing))))
        went_out = self.went_out
        assert went_out is not None  # the reveal stage is entered only by going out
        n = self.players
        seats = self.seats_in_hand
        hand_points: list[int | None] = [None] * n
        for seat in seats:
            hand_points[seat] = sum(points(self.known[s]) for s in self.hands[seat])
        phases = tuple(self.phase_of(s) if s in seats else None for s in range(n))
        played = tuple(self.down[s] if self.down[s] is not None else phases[s] for s in range(n))
        result = HandResult(self.hand_no, self.tie is not None, played,
                            tuple(self.down[s] is not None for s in range(n)),
                            tuple(hand_points), went_out)
        self.sheet = self.sheet + (result,)
        self.stage = "deal"
        self.sitting_out = frozenset()  # sitting out is for one hand
        if self.tie is not None:
            # The tie replay is won by whoever goes out first; its points do not count.
            self.winner = went_out
            self.stage = "over"
            return
        self.totals = tuple(t + (p or 0) for t, p in zip(self.totals, hand_points, strict=True))
        made = list(self.made)
        last = list(self.last_phase)
        for seat in seats:
            phase = self.down[seat]
            if phase is not None:
                made[seat] = made[seat] + (phase,)
                last[seat] = phase
            elif self.rules.hands:
                last[seat] = phases[seat]
        self.made = tuple(made)
        self.last_phase = tuple(last)
        self.regular_hands = self.regular_hands + 1
        self._settle_game()

    def _settle_game(self) -> None:
        rules = self.rules
        if rules.hands:
            finishers = list(range(self.players)) if self.regular_hands >= rules.hands else []
        else:
            finishers = [s for s in range(self.players) if len(self.made[s]) >= rules.phases_to_win]
        if not finishers:
            return
        best = min(self.totals[s] for s in finishers)
        tied = [s for s in finishers if self.totals[s] == best]
        if len(tied) == 1:
            self.winner = tied[0]
            self.stage = "over"
        else:
            self.tie = frozenset(tied)


_HANDLERS: dict[type, Callable[[GameState, Any], None]] = {
    Deal: GameState._on_deal,
    Reveal: GameState._on_reveal,
    Reshuffle: GameState._on_reshuffle,
    DrawStock: GameState._on_draw_stock,
    TakeDiscard: GameState._on_take_discard,
    LayDown: GameState._on_lay_down,
    Hit: GameState._on_hit,
    Discard: GameState._on_discard,
    EndHand: GameState._on_end_hand,
    SitOut: GameState._on_sit_out,
}


def _no_seat(seat: int) -> str:
    # TRANSLATORS: {seat} is a seat's index as the program counts them, from 0.
    return _("there is no seat {seat}").format(seat=seat)


def _names_mismatch(given: int, players: int) -> str:
    return _("{given} names given for {n} players").format(given=given, n=players)


def _or_text(items: Sequence[int]) -> str:
    """Phase numbers joined with "or" in the current language: '2 or 5 or 7'."""
    text = str(items[0])
    for item in items[1:]:
        # TRANSLATORS: two phase numbers the player may lay down; a longer list repeats it:
        # "2 or 5 or 7".
        text = _("{first} or {second}").format(first=text, second=item)
    return text


def fold(events: Iterable[Event], players: int, rules: RuleSet = DEFAULT,
         names: Sequence[str] | None = None) -> GameState:
    """The state after applying ``events`` in order to a new game."""
    state = GameState(players, rules, names)
    for event in events:
        state = state.apply(event)
    return state


def describe_hand(state: GameState, seat: int) -> str:
    """A seat's known hand in notation (unknown cards shown as ``??``)."""
    return " ".join(card_text(state.known[s]) if s in state.known else "??"
                    for s in state.hands[seat])


__all__ = ["Action", "Awaiting", "GameState", "HandResult", "PublicMove", "cards_text", "describe_hand",
           "fold"]
