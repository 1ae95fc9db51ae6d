"""The user's moves at the table: each move made from the hand with the questions it asks
(which lay-down, which meld and which end, a Wild given away, whom to skip), why a key moves
nothing, and the hint that plays one. Its own file because it is its own story:
:class:`~cli.seat.play.PlaySeat` follows the table, and calls these when a key, a click or a
tap asks for a move."""

from __future__ import annotations

import random
from functools import partial

from cli.seat.board import SeatBoard
from cli.seat.help import BUSY
from cli.seat.prompts import Choice, Prompt, yes_no
from p2p10.advice import Advice, NoAdvice, advise, meld_text, skip_choice
from p2p10.cards import card_text
from p2p10.engine import GameState
from p2p10.errors import IllegalMove
from p2p10.events import Discard, DrawStock, Hit, LayDown, SeatEvent, TakeDiscard
from p2p10.i18n import _, ngettext
from p2p10.melds import End, Meld, label_text
from p2p10.moves import (
    discard_targets,
    hit_fits,
    lay_down_choices,
    open_ends,
    phase_fit,
    plan_hits,
    plan_to_event,
    wild_given_away,
)
from p2p10.narrate import cards_words, list_words, skip_sentence
from p2p10.rules import describe_phase
from p2p10.solver import LayDownPlan
from protocol.seat_screen import SeatScreen


class PlayMoves(SeatBoard):
    """The board of the user at seat ``seat.seat`` of a :class:`~protocol.seat_screen.SeatScreen`,
    with the user's moves: each is played through the seat (:meth:`play_move`), or refused
    with the reason in the status line; a move that needs an answer asks it in a prompt."""

    def __init__(self, seat: SeatScreen) -> None:
        self.table_seat = seat
        self.seat = seat.seat
        self._follow = False  # the cursor goes to the card the user draws
        # Named, not super(): in a front end's class the next in line may be its drawing.
        SeatBoard.__init__(self, seat.names, seat.rules, self.seat, second_person=True)

    # -------------------------------------------------------------------- the move

    def waiting_for(self) -> str | None:
        """Why the user cannot move now, or None when it is their move."""
        seat = self.table_seat
        if seat.over:
            return _("the game is over")
        if seat.dealing() is not None:
            return _("wait a moment: the cards are being shuffled and dealt")
        if seat.my_turn():
            return None
        table = seat.table
        expect = table.expected() if table is not None else None
        if expect is not None and expect.kind == "move":
            voice = self.narrator.voice
            # TRANSLATORS: why a key did nothing: another player ({owner}) is to move.
            return _("it is {owner}'s turn, not yours").format(owner=voice.owner(expect.seat))
        kind = expect.kind if expect is not None else ""
        return _(BUSY[kind]) if kind in BUSY else _("wait a moment: the table is busy")

    def my_view(self) -> GameState | None:
        """The user's view when it is their move; otherwise None, with the reason shown."""
        why = self.waiting_for()
        if why is not None:
            self.refuse(why)
            return None
        return self.table_seat.view()

    def play_move(self, move: SeatEvent, done: str, follow: bool = False) -> bool:
        """Play one move; a refused move shows the engine's reason and changes nothing."""
        if self.my_view() is None:
            return False
        try:
            self.table_seat.play(move)
        except IllegalMove as err:
            self.refuse(str(err))
            return False
        self._follow = follow
        self.say(done)
        return True

    def hand_slots(self, state: GameState) -> list[int]:
        """The user's hand in the chosen order; the cursor follows a card just drawn."""
        slots = super().hand_slots(state)
        self.selected &= set(slots)
        if self._follow and state.stage == "play" and state.turn == self.seat and state.hands[self.seat]:
            drawn = state.hands[self.seat][-1]
            if drawn in slots:
                self.cursor = slots.index(drawn)
                self._follow = False
        return slots

    def chosen_slots(self, state: GameState) -> list[int]:
        """The selected cards in hand order, or the card under the cursor."""
        slots = self.hand_slots(state)
        chosen = [s for s in slots if s in self.selected]
        return chosen or slots[self.cursor:self.cursor + 1]

    # ----------------------------------------------------------------- laying down

    def lay_pool(self, state: GameState) -> tuple[list[int], bool]:
        """The cards a lay-down is made from: the selected ones, or the whole hand; and
        whether they are a selection."""
        selected = [state.known[s] for s in self.hand_slots(state) if s in self.selected]
        return (selected, True) if selected else (list(state.hand_cards(self.seat)), False)

    def lay_plans(self, state: GameState) -> list[LayDownPlan] | None:
        """The lay-downs open to the user (from the selection, if any), best first; None with
        the reason shown when there is none."""
        why = state.why_not("lay", self.seat)
        if why is not None:
            self.refuse(why)
            return None
        pool, selected = self.lay_pool(state)
        plans = lay_down_choices(state, self.seat, pool)
        if plans:
            return plans
        allowed = state.allowed_phases(self.seat)
        # TRANSLATORS: a phase a player may lay down, in a list of them: "phase 2 (set of 3 + run of 4)".
        phases = list_words([_("phase {phase} ({description})").format(phase=p, description=describe_phase(p))
                             for p in allowed])
        if selected:
            self.refuse(_("the selected cards do not make {phases}; Esc clears the selection").format(
                phases=phases))
        else:
            _phase, short, _fit = phase_fit(state.hand_cards(self.seat), allowed, state.rules)
            self.refuse(ngettext("you cannot lay down {phases} yet: {n} card short",
                                 "you cannot lay down {phases} yet: {n} cards short", short).format(
                phases=phases, n=short))
        return None

    def lay_down(self, plan: LayDownPlan | None = None) -> None:
        """Lay down ``plan``, or the arrangement that puts the most cards down."""
        state = self.my_view()
        if state is None:
            return
        if plan is None:
            plans = self.lay_plans(state)
            if plans is None:
                return
            plan = plans[0]
        melds = "; ".join(label_text(m.kind, m.label, len(m.cards)) for m in plan.melds)
        laid = _("You laid down phase {phase}: {melds}.").format(phase=plan.phase, melds=melds)
        if self.play_move(plan_to_event(state, self.seat, plan), laid):
            self.selected.clear()

    def choose_lay_down(self) -> None:
        """Go through the lay-downs open to the user, each previewed in the hand, each told
        apart by the cards it keeps back."""
        state = self.my_view()
        if state is None:
            return
        plans = self.lay_plans(state)
        if plans is None:
            return
        pool, _selected = self.lay_pool(state)
        slot_of = {state.known[s]: s for s in state.hands[self.seat] if s in state.known}
        choices = []
        for index, plan in enumerate(plans):
            melds = " + ".join(label_text(m.kind, m.label, len(m.cards)) for m in plan.melds)
            kept = [c for c in pool if c not in plan.cards]
            fields = {"phase": plan.phase, "melds": melds, "down": plan.down, "kept": cards_words(kept)}
            # TRANSLATORS: a lay-down to choose: "P2 set of 7s + run 2-6, 8 down, keeps R7 G12".
            label = (_("P{phase} {melds}, {down} down, keeps {kept}") if kept
                     else _("P{phase} {melds}, {down} down")).format(**fields)
            choices.append(Choice(str(index + 1) if index < 9 else "", label,
                                  partial(self.lay_down, plan), frozenset(slot_of[c] for c in plan.cards)))
        self.prompt = Prompt(_("Lay down which?"), choices, cycle="L")

    # --------------------------------------------------------------------- hitting

    def hit(self, meld_id: int | None = None) -> None:
        """Hit the selected cards (or the one under the cursor) on a meld: ``meld_id``, the
        only one they fit, or one the user picks by its letter."""
        state = self.my_view()
        if state is None:
            return
        slots = self.chosen_slots(state)
        if not slots:
            self.refuse(_("you have no card to hit"))
            return
        if meld_id is not None:
            self.hit_on(state, slots, meld_id)
            return
        why = state.why_not("hit", self.seat)  # not drawn yet, not down yet: said first
        if why is not None or not state.melds:
            self.refuse(why or _("there is no meld on the table to hit yet"))
            return
        fitting, reasons = hit_fits(state, self.seat, slots)
        cards = " ".join(card_text(state.known[s]) for s in slots)
        if not fitting:
            if len(set(reasons)) == 1:
                self.refuse(reasons[0])
            elif len(slots) > 1:
                self.refuse(_("{cards} do not all fit one meld on the table").format(cards=cards))
            else:
                self.refuse(_("{cards} fits no meld on the table").format(cards=cards))
            return
        if len(fitting) == 1:
            self.hit_on(state, slots, fitting[0])
            return
        choices = [Choice(chr(ord("a") + m), self.meld_name(state.melds[m]), partial(self.hit, m))
                   for m in fitting]

        def other_meld(key: str) -> bool:
            # A meld's letter that is not offered: hit it anyway, for the engine's reason.
            meld = ord(key) - ord("a") if len(key) == 1 else -1
            if not 0 <= meld < len(state.melds):
                return False
            self.hit(meld)
            return True

        self.prompt = Prompt(_("Hit {cards} on which meld?").format(cards=cards), choices, other=other_meld)

    def meld_name(self, meld: Meld) -> str:
        """A meld in words: whose, and what."""
        name = label_text(meld.kind, meld.label, len(meld.cards))
        voice = self.narrator.voice
        if voice.is_you(meld.owner):
            # TRANSLATORS: a meld of the user's, among those to choose from: "your run 4-7".
            return _("your {meld}").format(meld=name)
        # TRANSLATORS: another player's meld, among those to choose from: "Ann's set of 7s".
        return _("{owner}'s {meld}").format(owner=voice.owner(meld.owner), meld=name)

    def hit_on(self, state: GameState, slots: list[int], meld_id: int, end: End | None = None) -> None:
        """Hit every card at ``slots`` on meld ``meld_id``, all of them or none."""
        meld = state.melds[meld_id] if meld_id < len(state.melds) else None
        if meld is None:
            self.refuse(_("there is no meld {letter}").format(letter=chr(ord("A") + meld_id)))
            return
        ends = open_ends(meld, state.known[slots[0]]) if end is None and len(slots) == 1 else {}
        if ends:
            name = label_text(meld.kind, meld.label, len(meld.cards))
            at = partial(self.hit_on, state, slots, meld_id)
            self.prompt = Prompt(_("Which end of the {meld}?").format(meld=name), [
                Choice("<", _("low end, as {value}").format(value=ends["low"]), partial(at, "low")),
                Choice(">", _("high end, as {value}").format(value=ends["high"]), partial(at, "high"))])
            return
        try:
            hits = plan_hits(state, self.seat, meld_id, slots, end)
        except IllegalMove as err:
            self.refuse(str(err))
            return
        done = self.hit_words(meld, " ".join(card_text(h.card) for h in hits))
        for move in hits:
            if not self.play_move(move, done):
                return
        self.selected.clear()

    def hit_words(self, meld: Meld, cards: str) -> str:
        """What the status line says after ``cards`` (in notation) were hit on ``meld``."""
        name = label_text(meld.kind, meld.label, len(meld.cards))
        voice = self.narrator.voice
        if voice.is_you(meld.owner):
            return _("You hit {cards} on your {meld}.").format(cards=cards, meld=name)
        return _("You hit {cards} on {owner}'s {meld}.").format(
            cards=cards, owner=voice.owner(meld.owner), meld=name)

    # ------------------------------------------------------------------ discarding

    def discard(self) -> None:
        """Discard the card under the cursor; a Skip asks whom it is for, a Wild that the next
        player could take asks first."""
        state = self.my_view()
        if state is None:
            return
        slots = self.hand_slots(state)
        if not slots:
            self.refuse(_("you have no card to discard"))
            return
        slot = slots[self.cursor]
        taker = wild_given_away(state, self.seat, slot)
        if taker is None:
            self.discard_slot(state, slot)
            return
        name = self.narrator.voice.name(taker)
        # TRANSLATORS: asked before a Wild is discarded; {name} is the next player, who may take it.
        self.prompt = yes_no(_("Discard a Wild? {name} may take it.").format(name=name),
                             _("discard it"), partial(self.discard_slot, state, slot),
                             _("keep it"), self._kept)

    def _kept(self) -> None:
        self.say(_("You kept the Wild."), "class:dim")

    def discard_slot(self, state: GameState, slot: int) -> None:
        """Discard the card at ``slot``; a Skip asks whom it is for, unless only one may be
        skipped."""
        card = state.known[slot]
        targets = discard_targets(state, self.seat, card)
        voice = self.narrator.voice
        if not targets:
            self.play_move(Discard(self.seat, slot, card),
                           _("You discarded {card}.").format(card=card_text(card)))
            return
        if len(targets) == 1:
            only = targets[0]
            self.play_move(Discard(self.seat, slot, card, only), skip_sentence(voice, self.seat, only))
            return
        # Numbered 1, 2, ... as they read (not by seat); the player the hint would skip is
        # the current choice, so that Enter follows the hint.
        hinted = skip_choice(state, targets)
        choices = []
        for number, target in enumerate(targets, start=1):
            name = voice.name(target)
            # TRANSLATORS: the player a Skip's hint names, among those to choose from.
            label = _("{name} (hint)").format(name=name) if target == hinted else name
            choices.append(Choice(str(number) if number <= 9 else "", label,
                                  partial(self.play_move, Discard(self.seat, slot, card, target),
                                          skip_sentence(voice, self.seat, target))))
        self.prompt = Prompt(_("Skip whom?"), choices, index=targets.index(hinted))

    # -------------------------------------------------------------------- the hint

    def advice(self) -> Advice | None:
        """What the strong bot would play for the user now; None, with why there is no hint
        shown, when there is none."""
        seat = self.table_seat
        table = seat.table
        if table is None or seat.over or seat.dealing() is not None:
            self.say(_("No hint: {reason}.").format(reason=self.waiting_for()), "class:dim")
            return None
        try:
            # The same position, the same hint: the bot's random source is seeded by it.
            return advise(seat.view(), self.seat, self.spoken, random.Random(table.seq))
        except NoAdvice as err:
            self.say(_("No hint: {reason}.").format(reason=err), "class:dim")
            return None

    def hint(self) -> None:
        """What the strong bot would play for the user now, and why, in the status line; the
        cursor goes to the card it plays from the hand (so that x or h does what the hint
        says), and p plays it. Out of turn, why there is no hint."""
        advice = self.advice()
        if advice is None:
            return
        move = advice.move
        if isinstance(move, Discard | Hit):
            state = self.table_seat.view()
            slots = self.hand_slots(state)
            if move.slot in slots:
                self.cursor = slots.index(move.slot)
                self.selected.clear()
        # TRANSLATORS: {advice} is the strong bot's move and its reason: "discard G9: ...".
        self.say(_("Hint: {advice}.").format(advice=advice.reason))

    def play_hint(self) -> None:
        """Play the move the hint advises (the one ``i`` shows)."""
        advice = self.advice()
        if advice is None:
            return
        move = advice.move
        state = self.table_seat.view()
        if isinstance(move, DrawStock):
            self.play_move(move, _("You drew from the draw pile."), follow=True)
        elif isinstance(move, TakeDiscard):
            self.play_move(move, _("You took the discard."), follow=True)
        elif isinstance(move, LayDown):
            melds = "; ".join(meld_text(m) for m in advice.reason_parts.melds)
            if self.play_move(move, _("You laid down phase {phase}: {melds}.").format(
                    phase=move.phase, melds=melds)):
                self.selected.clear()
        elif isinstance(move, Hit):
            if self.play_move(move, self.hit_words(state.melds[move.meld], card_text(move.card))):
                self.selected.clear()
        elif move.target is not None:
            self.play_move(move, skip_sentence(self.narrator.voice, self.seat, move.target))
        elif wild_given_away(state, self.seat, move.slot) is not None:  # asked first, as x asks
            self.cursor = self.hand_slots(state).index(move.slot)
            self.discard()
        else:
            self.play_move(move, _("You discarded {card}.").format(card=card_text(move.card)))
