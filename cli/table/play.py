"""``p2p10 play``'s screen: the user's seat at a table, by keys and by mouse."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from cli.table.board import Board
from cli.table.drawing import Handler, Line, click, plain, tagged, width
from cli.table.prompts import Choice, Prompt
from p2p10.cards import card_text
from p2p10.engine import Action, GameState
from p2p10.errors import IllegalMove
from p2p10.events import Discard, DrawStock, SeatEvent, TakeDiscard
from p2p10.melds import End, Meld, label_text
from p2p10.moves import (
    discard_targets,
    hit_fits,
    lay_down_choices,
    open_ends,
    phase_fit,
    plan_hits,
    plan_to_event,
)
from p2p10.rules import describe_phase
from p2p10.solver import LayDownPlan
from p2p10.table import TableState
from protocol.seat_screen import SeatScreen

PLAY_HELP = (
    " Goal: make the phases in order, one per hand, with the fewest penalty points.",
    " A turn: draw a card; lay down your whole phase (once a hand); hit cards on any",
    " meld once you are down; end by discarding one card. Empty your hand to go out.",
    "",
    " d  draw from the draw pile        t  take the top of the discard pile",
    " l  lay down your phase: the arrangement that puts the most cards down",
    "    (with cards selected: the best from those cards only)",
    " L  choose another lay-down: L or arrows go through them, Enter lays it down",
    " ←→ move the cursor; Space, Enter or ↑ select a card; ↓ or Esc unselect",
    " h  hit the selected cards (or the card under the cursor) on a meld:",
    "    A, B, ... name the melds; a card that does not fit is refused",
    " x  discard the card under the cursor; for a Skip, a digit chooses whom",
    " o  sort your hand by number or by colour",
    " s  score sheet    r  rules in force    ?  this help    q  quit (y confirms)",
    " The mouse works too: click a card, a meld, a pile or a key below.",
    "",
    " Highlighted cards (heavy frame, underlined; * with --ascii) fit your phase,",
    " or, once you are down, a meld on the table. P3 is a player's phase;",
    " a tick (+ with --ascii) means laid down this hand. Cards: R7 red 7,",
    " B12 blue 12, G1 green, Y9 yellow, W wild, S skip.",
)

# What the table is doing while it waits for an entry that is not the user's move.
BUSY = {"shuffle": "the discard pile is being reshuffled into a new draw pile",
        "tokens": "the other players are opening the card just drawn",
        "reveal": "the cards left in hand are being revealed and scored"}


class TableApp(Board):
    """The user at a table through a :class:`~protocol.local.SeatScreen`: the seat plays the
    table (its messages, its bots and their pace); this screen shows the game, narrates it,
    and passes the user's moves on. While a hand's summary is open it holds the seat, so that
    a table that can wait (bots on this machine) does. ``run()`` returns when the user leaves.
    """

    help_text: tuple[str, ...] = PLAY_HELP

    def __init__(self, seat: SeatScreen, ascii_only: bool = False) -> None:
        self.table_seat = seat
        self.seat = seat.seat
        self.hold = False  # a hand's summary is open: the seat is held until it closes
        self._follow = False  # the cursor goes to the card the user draws
        self._cache: tuple[TableState, GameState] | None = None
        self.again = False  # the user asked for another game at the end of this one
        super().__init__(seat.names, seat.rules, self.seat, ascii_only, second_person=True)
        seat.subscribe(self._changed)

    async def run(self) -> None:
        """Show the table and play until the user leaves."""
        def start() -> None:
            self.app.create_background_task(self._follow_the_table())

        await self.app.run_async(pre_run=start)

    async def _follow_the_table(self) -> None:
        try:
            await self.table_seat.run()
        except Exception as err:  # a bug, or a table entry that contradicts the roster: show why
            self.fail(err)
            return
        self._changed()

    def _changed(self) -> None:
        """After every new entry of the user's log: narrate, and open a hand's summary."""
        seat = self.table_seat
        table = seat.table
        if table is None:
            return
        summary = self.narrator.update(seat.view(), table)
        if summary is not None:
            self.summary = summary
            self.prompt = None
            if summary.winner is None:
                self.hold = True
                seat.hold(True)
                self.screen = "hand"
        if seat.over and not self.hold:
            self.prompt = None
            self.screen = "over"
        self.app.invalidate()

    def over_lines(self, state: GameState) -> list[Line]:
        """The end of the game, and where its log is."""
        saved = plain(f" The game's log: {self.table_seat.log_path}", "class:dim")
        return [*super().over_lines(state), plain(""), saved]

    # --------------------------------------------------------------------- reading

    def state(self) -> GameState | None:
        """The game as the user sees it (one view per log entry, however often it is drawn)."""
        table = self.table_seat.table
        if table is None:
            return None
        if self._cache is None or self._cache[0] is not table:
            self._cache = (table, self.table_seat.view())
        return self._cache[1]

    def title(self, state: GameState | None) -> Line:
        """The hand number and whose turn it is (and the rules, if there is room)."""
        hand = f" Hand {state.hand_no + 1}  " if state is not None and state.hand_no >= 0 else " p2p10  "
        line: Line = [("class:title", hand)]
        seat = self.table_seat
        if seat.over:
            line.append(("class:myturn", " Game over "))
        elif seat.dealing() is not None or state is None:
            line.append(("class:dim", "shuffling and dealing..."))
        elif seat.my_turn():
            doing = "draw a card (d or t)" if state.stage == "draw" else "play, then discard (x)"
            line.append(("class:myturn", f" Your turn: {doing} "))
        elif state.stage in ("draw", "play"):
            line.append(("", f"{self.narrator.voice.name(state.turn)} is playing..."))
        else:
            line.append(("class:dim", "the hand is over: the cards are revealed"))
        rules = f"  ({self.rules.describe()})"
        if width(line) + width([("", rules)]) <= self.left_width():
            line.append(("class:dim", rules))
        return line

    def piles_note(self) -> Line | None:
        """A progress bar while the deck is shuffled and dealt."""
        progress = self.table_seat.dealing()
        if progress is None or self.table_seat.over:
            return None
        done, total = progress
        filled = 20 * done // max(total, 1)
        bar = "█" * filled + "░" * (20 - filled)
        return [("", "  Shuffling and dealing "), ("class:warn", f"[{bar}]"), ("", f" {done}/{total} steps")]

    def may(self, action: Action) -> bool:
        """Whether the user may make a move of kind ``action`` now (the engine says)."""
        state = self.state()
        return state is not None and self.table_seat.my_turn() and state.why_not(action, self.seat) is None

    def footer(self) -> list[Line]:
        """The actions, lit when the rules allow them now."""
        return [
            *self.keys_lines([("d", "draw", self.may("draw")), ("t", "take", self.may("take")),
                              ("l", "lay down", self.may("lay")), ("L", "choose", self.may("lay")),
                              ("h", "hit", self.may("hit")), ("x", "discard", self.may("discard"))]),
            *self.keys_lines([("←→", "move", True), ("Space", "select", True), ("o", "sort", True),
                              ("s", "scores", True), ("r", "rules", True), ("?", "help", True),
                              ("q", "quit", True)]),
        ]

    def panel_keys_shown(self) -> list[tuple[str, str, bool]]:
        """At the end of a game: n plays another with the same settings."""
        return [("n", "play again", True)] if self.screen == "over" and self.table_seat.over else []

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

    # ------------------------------------------------------------------------ keys

    def table_keys(self, key: str) -> None:
        """The table's keys (see ``PLAY_HELP``)."""
        state = self.state()
        slots = self.hand_slots(state) if state is not None else []
        if self.move_cursor(key, len(slots)):
            return
        actions: dict[str, Callable[[], object]] = {
            "d": partial(self.play_move, DrawStock(self.seat), "You drew from the draw pile.", follow=True),
            "t": partial(self.play_move, TakeDiscard(self.seat), "You took the discard.", follow=True),
            "l": self.lay_down, "L": self.choose_lay_down, "h": self.hit, "x": self.discard,
            "s": partial(self.open, "sheet"), "r": partial(self.open, "rules"),
            "?": partial(self.open, "help"), "o": self._sort,
        }
        if key in actions:
            actions[key]()
        elif key in ("Space", "Enter") and slots:
            self.selected ^= {slots[self.cursor]}
        elif key == "↑" and slots:
            self.selected.add(slots[self.cursor])
        elif key == "↓" and slots:
            self.selected.discard(slots[self.cursor])
        elif key == "Esc":
            self.selected.clear()
            self.status = []

    def _sort(self) -> None:
        self.by_colour = not self.by_colour
        self.say(f"Sorted by {'colour' if self.by_colour else 'number'}.", "class:dim")

    def panel_keys(self, key: str) -> None:
        """A hand's summary waits for Enter; the end screen leaves on Enter."""
        if self.screen == "over" and key in ("Enter", "Esc", "Space"):
            self.quit()
        elif self.screen == "over" and key == "n" and self.table_seat.over:
            self.again = True
            self.quit()
        elif self.screen == "hand" and key in ("Enter", "Esc", "Space"):
            self.close_panel()
        else:
            super().panel_keys(key)

    def close_panel(self) -> None:
        """Back to the table; closing a hand's summary lets the seat go on."""
        if self.hold:
            self.hold = False
            self.table_seat.hold(False)
        self.screen = "over" if self.table_seat.over else "table"

    def ask_quit(self) -> None:
        """Ask before leaving a game under way; a finished one just closes."""
        if self.table_seat.over:
            self.quit()
        else:
            self.prompt = Prompt("Quit the game? Its log stays saved.",
                                 [Choice("y", "yes, quit", self.quit),
                                  Choice("n", "no, play on", self.cancel)], index=1)

    def meld_clicked(self, meld_id: int) -> Handler | None:
        """A click on a meld hits the selected cards on it."""
        return click(partial(self.hit, meld_id))

    def card_clicked(self, index: int) -> Handler | None:
        """A click on a card puts the cursor there and selects or unselects it."""
        def toggle() -> None:
            state = self.state()
            slots = self.hand_slots(state) if state is not None else []
            if index < len(slots):
                self.cursor = index
                self.selected ^= {slots[index]}
        return click(toggle)

    def piles_line(self, state: GameState) -> Line:
        """The piles; a click on the draw pile draws, on the discard pile takes or discards."""
        line = super().piles_line(state)
        if self.piles_note() is not None:
            return line
        draw = click(lambda: self.press("d"))
        discard = click(lambda: self.press("t" if state.stage == "draw" else "x"))
        split = next((i for i, f in enumerate(line) if "Discard" in f[1]), len(line))
        return tagged(line[:split], draw) + tagged(line[split:], discard)

    # --------------------------------------------------------------------- actions

    def waiting_for(self) -> str | None:
        """Why the user cannot move now, or None when it is their move."""
        seat = self.table_seat
        if seat.over:
            return "the game is over"
        if seat.dealing() is not None:
            return "wait a moment: the cards are being shuffled and dealt"
        if seat.my_turn():
            return None
        table = seat.table
        expect = table.expected() if table is not None else None
        if expect is not None and expect.kind == "move":
            return f"it is {self.narrator.voice.whose(expect.seat)} turn, not yours"
        return f"wait a moment: {BUSY.get(expect.kind if expect else '', 'the table is busy')}"

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

    def chosen_slots(self, state: GameState) -> list[int]:
        """The selected cards in hand order, or the card under the cursor."""
        slots = self.hand_slots(state)
        chosen = [s for s in slots if s in self.selected]
        return chosen or slots[self.cursor:self.cursor + 1]

    def lay_plans(self, state: GameState) -> list[LayDownPlan] | None:
        """The lay-downs open to the user (from the selection, if any), best first; None with
        the reason shown when there is none."""
        why = state.why_not("lay", self.seat)
        if why is not None:
            self.refuse(why)
            return None
        selected = [state.known[s] for s in self.hand_slots(state) if s in self.selected]
        plans = lay_down_choices(state, self.seat, selected or state.hand_cards(self.seat))
        if plans:
            return plans
        phases = " or ".join(f"phase {p} ({describe_phase(p)})" for p in state.allowed_phases(self.seat))
        if selected:
            self.refuse(f"the selected cards do not make {phases}; Esc clears the selection")
        else:
            _, short, _ = phase_fit(state.hand_cards(self.seat), state.allowed_phases(self.seat), state.rules)
            self.refuse(f"you cannot lay down {phases} yet: {short} card{'s' * (short != 1)} short")
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
        laid = f"You laid down phase {plan.phase}: {melds}."
        if self.play_move(plan_to_event(state, self.seat, plan), laid):
            self.selected.clear()

    def choose_lay_down(self) -> None:
        """Go through the lay-downs open to the user, each previewed in the hand."""
        state = self.my_view()
        if state is None:
            return
        plans = self.lay_plans(state)
        if plans is None:
            return
        slot_of = {state.known[s]: s for s in state.hands[self.seat] if s in state.known}
        choices = []
        for index, plan in enumerate(plans):
            words = " + ".join(f"{label_text(m.kind, m.label, len(m.cards))}" for m in plan.melds)
            label = f"P{plan.phase} {words}, {plan.down} down"
            choices.append(Choice(str(index + 1) if index < 9 else "", label,
                                  partial(self.lay_down, plan), frozenset(slot_of[c] for c in plan.cards)))
        self.prompt = Prompt("Lay down which?", choices, cycle="L")

    def hit(self, meld_id: int | None = None) -> None:
        """Hit the selected cards (or the one under the cursor) on a meld: ``meld_id``, the
        only one they fit, or one the user picks by its letter."""
        state = self.my_view()
        if state is None:
            return
        slots = self.chosen_slots(state)
        if not slots:
            self.refuse("you have no card to hit")
            return
        if meld_id is not None:
            self.hit_on(state, slots, meld_id)
            return
        why = state.why_not("hit", self.seat)  # not drawn yet, not down yet: said first
        if why is not None or not state.melds:
            self.refuse(why or "there is no meld on the table to hit yet")
            return
        fitting, reasons = hit_fits(state, self.seat, slots)
        cards = " ".join(card_text(state.known[s]) for s in slots)
        if not fitting:
            if len(set(reasons)) == 1:
                self.refuse(reasons[0])
            else:
                what = f"{cards} do not all fit one meld" if len(slots) > 1 else f"{cards} fits no meld"
                self.refuse(f"{what} on the table")
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

        self.prompt = Prompt(f"Hit {cards} on which meld?", choices, other=other_meld)

    def meld_name(self, meld: Meld) -> str:
        """A meld in words: whose, and what."""
        return f"{self.narrator.voice.whose(meld.owner)} {label_text(meld.kind, meld.label, len(meld.cards))}"

    def hit_on(self, state: GameState, slots: list[int], meld_id: int, end: End | None = None) -> None:
        """Hit every card at ``slots`` on meld ``meld_id``, all of them or none."""
        meld = state.melds[meld_id] if meld_id < len(state.melds) else None
        if meld is None:
            self.refuse(f"there is no meld {chr(ord('A') + meld_id)}")
            return
        ends = open_ends(meld, state.known[slots[0]]) if end is None and len(slots) == 1 else {}
        if ends:
            name = label_text(meld.kind, meld.label, len(meld.cards))
            at = partial(self.hit_on, state, slots, meld_id)
            self.prompt = Prompt(f"Which end of the {name}?", [
                Choice("<", f"low end, as {ends['low']}", partial(at, "low")),
                Choice(">", f"high end, as {ends['high']}", partial(at, "high"))])
            return
        try:
            hits = plan_hits(state, self.seat, meld_id, slots, end)
        except IllegalMove as err:
            self.refuse(str(err))
            return
        cards = " ".join(card_text(h.card) for h in hits)
        for move in hits:
            if not self.play_move(move, f"You hit {cards} on {self.meld_name(meld)}."):
                return
        self.selected.clear()

    def discard(self) -> None:
        """Discard the card under the cursor; a Skip asks whom it is for."""
        state = self.my_view()
        if state is None:
            return
        slots = self.hand_slots(state)
        if not slots:
            self.refuse("you have no card to discard")
            return
        slot = slots[self.cursor]
        card = state.known[slot]
        targets = discard_targets(state, self.seat, card)
        voice = self.narrator.voice
        if not targets:
            self.play_move(Discard(self.seat, slot, card), f"You discarded {card_text(card)}.")
        elif len(targets) == 1:
            only = targets[0]
            self.play_move(Discard(self.seat, slot, card, only), f"You skipped {voice.name(only)}.")
        else:
            choices = [Choice(str(t + 1), voice.name(t),  # seats are numbered from 1, as everywhere
                              partial(self.play_move, Discard(self.seat, slot, card, t),
                                      f"You skipped {voice.name(t)}."))
                       for t in targets]
            self.prompt = Prompt("Skip whom?", choices)
