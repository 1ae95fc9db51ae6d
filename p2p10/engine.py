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

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from p2p10.cards import DECK_SIZE, card_text, cards_text, is_skip
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
from p2p10.game_end import GameEnd
from p2p10.game_fields import (
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Action,
    Awaiting,
    HandResult,
    PublicMove,
    Stage,
    names_mismatch_text,
    no_seat_text,
)
from p2p10.i18n import _
from p2p10.rules import DEFAULT, RuleSet

"""A kind of move: from the draw pile, from the discard pile, a lay-down, a hit, a discard."""


class GameState(GameEnd):
    """The state of a game at one point of its event log. Treat it as immutable."""

    __slots__ = ()

    def __init__(self, players: int, rules: RuleSet = DEFAULT,
                 names: Sequence[str] | None = None) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            # TRANSLATORS: "Phase 10" is the game's name here (kept as it is in every language).
            raise IllegalMove(_("Phase 10 is for {low} to {high} players, not {n}").format(
                low=MIN_PLAYERS, high=MAX_PLAYERS, n=players))
        if names is not None and len(names) != players:
            raise IllegalMove(names_mismatch_text(len(names), players))
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

    # ------------------------------------------------------------------- applying events

    def apply(self, event: Event) -> GameState:
        """Validate ``event`` and return the state after it. Raises :class:`IllegalMove`."""
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise IllegalMove(_("{event!r} is not a game event").format(event=event))
        new = self._copy()
        handler(new, event)
        return new

    # Each _on_* mutates a fresh copy made by apply(); the original is never touched.

    def why_not(self, action: Action, seat: int) -> str | None:
        """Why ``seat`` may not make a move of kind ``action`` now, whatever its cards, or None
        when it may: the reason the engine gives when it refuses such a move (the same code
        checks both), so a player can be told without a move being built to try.

        A ``lay`` that passes may still be refused for its melds, a ``hit`` for its meld or card."""
        if not 0 <= seat < self.players:
            return no_seat_text(seat)
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
            raise IllegalMove(no_seat_text(event.seat))
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
