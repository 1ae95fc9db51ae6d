"""A hand's end as the rules engine scores it: the points left in every hand, the phases made, the
score sheet's row, and the end of the game (its winner, or a tie to play off). The events that
lead there are p2p10.engine."""

from __future__ import annotations

from p2p10.cards import points
from p2p10.errors import IllegalMove
from p2p10.events import (
    EndHand,
)
from p2p10.game_fields import (
    HandResult,
)
from p2p10.game_moves import GameMoves
from p2p10.i18n import _, ngettext


class GameEnd(GameMoves):
    """The end of a hand and of the game."""

    __slots__ = ()

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
