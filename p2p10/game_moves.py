"""The moves of a turn as the rules engine applies them: a phase laid down, a card hit onto a
meld, a discard and the Skip it may carry, each checked against the rules first. The events
around them are p2p10.engine."""

from __future__ import annotations

from p2p10.cards import card_text, is_natural, is_skip
from p2p10.errors import IllegalMove
from p2p10.events import (
    Discard,
    Hit,
    LayDown,
)
from p2p10.game_fields import (
    GameFields,
    PublicMove,
    no_seat_text,
    or_text,
)
from p2p10.i18n import _, ngettext
from p2p10.melds import Meld, MeldError, check_meld, hit
from p2p10.rules import PHASES, describe_phase


class GameMoves(GameFields):
    """The moves of a player's turn, applied to a fresh copy of the state."""

    __slots__ = ()

    def _on_lay_down(self, event: LayDown) -> None:
        seat = event.seat
        self._check_may("lay", seat)
        allowed = self.allowed_phases(seat)
        if event.phase not in allowed:
            # TRANSLATORS: {phases} is one phase number, or several under order=any ("2 or 5");
            # {tried} is the phase the player tried to lay down.
            raise IllegalMove(ngettext("you are on phase {phases}, not phase {tried}",
                                       "you are on phase {phases}, not phase {tried}",
                                       len(allowed)).format(phases=or_text(allowed),
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
            return no_seat_text(target)
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
